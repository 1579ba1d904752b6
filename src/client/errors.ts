import { ERROR_STATUS, type ErrorCode } from '../contract/error-codes.js';

/**
 * Failures that never reached, or never came back from, the service as one of its own
 * answers. They travel with status 0 (no HTTP answer), except `bad_response`, which
 * keeps the status of the answer that could not be read.
 * - `unreachable`: connection refused, DNS failure, reset, or the answer cut off;
 * - `timeout`: no complete answer within the client's `timeoutMs`;
 * - `bad_response`: an answer that is not the API's JSON (a proxy's HTML page, a body
 *   outside the contract, another service on that URL).
 */
export const CLIENT_ERROR_CODES = ['unreachable', 'timeout', 'bad_response'] as const;
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];
export type DecideErrorCode = ErrorCode | ClientErrorCode;

/**
 * Every failure of a DecideClient call. `status` and `code` are the service's (see
 * ERROR_STATUS) when it answered in the contract's `{ error, code }` shape; `message`
 * is its sentence naming the field or cause; `retryAfter` is its `Retry-After`, in
 * seconds, when it sent one; `requestId` is the id the answer carried (the body's
 * `requestId`, else its `X-Request-Id`), the one the service's log lines name.
 */
export class DecideError extends Error {
  override readonly name = 'DecideError';
  readonly requestId?: string;
  constructor(
    readonly status: number,
    readonly code: DecideErrorCode,
    message: string,
    readonly retryAfter?: number,
    options?: { cause?: unknown; requestId?: string },
  ) {
    super(message, options);
    if (options?.requestId !== undefined) this.requestId = options.requestId;
  }

  /** True for codes the service itself answers with (as opposed to transport failures). */
  get fromService(): boolean {
    return this.code in ERROR_STATUS;
  }
}

export function isServiceCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}
