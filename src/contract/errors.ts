import { z } from 'zod';

/** Every `code` the service answers with, and the HTTP status it travels with. */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_request: 400,
  unauthorized: 401,
  pass_required: 402,
  insufficient_credits: 402,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_in_progress: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  free_limit_reached: 429,
  rate_limited: 429,
  engine_busy: 429,
  internal_error: 500,
  engine_bad_response: 502,
  engine_unavailable: 503,
  engine_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ErrorCode = z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]);

export const ErrorBody = z
  .strictObject({
    error: z.string().meta({ description: 'A sentence naming the field or the cause.' }),
    code: ErrorCode,
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof ErrorBody>;

/**
 * A failure the service answers with: the code fixes the status; `retryAfter`
 * (seconds) becomes the `Retry-After` header.
 */
export class DecideError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'DecideError';
    this.status = ERROR_STATUS[code];
  }

  toBody(): ErrorBody {
    return { error: this.message, code: this.code };
  }
}

/** One sentence naming the offending field, from a zod error. */
export function describeIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => [...issue.path, k].join('.'));
      return `${keys.join(', ')}: not allowed here`;
    }
    if (issue.code === 'invalid_union' && 'discriminator' in issue) {
      const field = issue.path.length ? issue.path.join('.') : String(issue.discriminator);
      return `${field}: ${issue.message}`;
    }
    const field = issue.path.length ? issue.path.join('.') : 'body';
    return `${field}: ${issue.message}`;
  });
  return parts.join('; ');
}
