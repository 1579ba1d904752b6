import { z } from 'zod';
import { ErrorCode, RequestId, ServiceError, type ErrorCode as Code } from './errors.js';

/**
 * The System One format's error bodies, as its clients read them (the SDKs take the
 * message from `detail`): a request that fails validation is 422
 * `{"detail": [{"loc": ["body", …], "msg", "type"}]}`, every other failure keeps its
 * status and says `{"detail": {"error_type", "message"}}`. Only `/v1/systemone` and
 * `/v1/models` answer this way; the rest of the API keeps its own `Error`
 * (`{ error, code }`). decide's own code travels along as `x_code`, so a caller can
 * still tell `free_limit_reached` from `rate_limited` (both 429 `rate_limit_error`),
 * and the request's id as `x_request_id` (the validation array has no room for it:
 * its clients read every member as an issue).
 */

export const ValidationIssue = z.strictObject({
  loc: z
    .array(z.union([z.string(), z.int()]))
    .meta({ description: 'Where: "body" (or "header") and the path to the value, e.g. ["body", "questions", "topic", "criteria"].' }),
  msg: z.string(),
  type: z.string().meta({ description: 'What kind of problem: missing, extra_forbidden, too_long, value_error, json_invalid, …' }),
});
export type ValidationIssue = z.infer<typeof ValidationIssue>;

export const SystemOneValidationError = z
  .strictObject({ detail: z.array(ValidationIssue).min(1) })
  .meta({ id: 'SystemOneValidationError' });

export const SystemOneError = z
  .strictObject({
    detail: z.strictObject({
      error_type: z
        .string()
        .meta({ description: 'authentication_error, billing_error, rate_limit_error, overloaded_error, engine_error, …' }),
      message: z.string(),
      x_code: ErrorCode.meta({ description: "decide's own code for it, as on the rest of the API." }),
      x_request_id: RequestId.optional().meta({
        description: "The request's id, as in its X-Request-Id and x-typesafe-request-id headers.",
      }),
    }),
  })
  .meta({ id: 'SystemOneError' });
export type SystemOneError = z.infer<typeof SystemOneError>;

/** Every problem of a request, at most this many. */
const MOST_ISSUES = 20;

/** A request the format's validation refuses: 422 with these issues (and, for logs, their sentence). */
export class FormatValidation extends ServiceError {
  constructor(readonly detail: ValidationIssue[]) {
    super('invalid_request', detail.map(({ loc, msg }) => `${loc.slice(1).join('.') || loc[0]}: ${msg}`).join('; '));
  }
}

/** The issues of a zod error on `body`, located as the format locates them. */
export function validationIssues(error: z.ZodError, body: unknown): ValidationIssue[] {
  return error.issues.slice(0, MOST_ISSUES).flatMap((issue): ValidationIssue[] => {
    const path = issue.path.map((part) => (typeof part === 'number' ? part : String(part)));
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ loc: ['body', ...path, key], msg: 'not allowed here', type: 'extra_forbidden' }));
    }
    if (absent(body, path)) return [{ loc: ['body', ...path], msg: 'Field required', type: 'missing' }];
    return [{ loc: ['body', ...path], msg: issue.message, type: issueType(issue) }];
  });
}

/** Whether the body has no member at `path` (its parent being an object without it). */
function absent(body: unknown, path: ReadonlyArray<string | number>): boolean {
  let value: unknown = body;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return false;
    if (!Object.hasOwn(value, part)) return true;
    value = (value as Record<string | number, unknown>)[part];
  }
  return false;
}

function issueType(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `${issue.expected}_type`;
    case 'too_small':
      return 'too_short';
    case 'too_big':
      return 'too_long';
    case 'invalid_union':
      return 'discriminator' in issue ? 'union_tag_invalid' : 'union_type';
    case 'invalid_value':
      return 'literal_error';
    default:
      return 'value_error';
  }
}

/** The format's kind of each failure. */
const ERROR_TYPES: Partial<Record<Code, string>> = {
  unauthorized: 'authentication_error',
  pass_missing: 'authentication_error',
  pass_required: 'billing_error',
  insufficient_credits: 'billing_error',
  forbidden_origin: 'permission_error',
  verification_failed: 'permission_error',
  not_found: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  unsupported_media_type: 'invalid_request_error',
  idempotency_in_progress: 'conflict_error',
  payload_too_large: 'request_too_large',
  free_limit_reached: 'rate_limit_error',
  rate_limited: 'rate_limit_error',
  engine_busy: 'overloaded_error',
  engine_bad_response: 'engine_error',
  engine_unavailable: 'engine_error',
  engine_timeout: 'engine_error',
  ledger_unavailable: 'unavailable_error',
  verification_unavailable: 'unavailable_error',
};

/** A failure in the format's shape: its status and body. Validation failures (and a reused Idempotency-Key) are 422 with `detail[]`. */
export function formatErrorBody(
  error: ServiceError,
  requestId?: string,
): { status: number; body: { detail: ValidationIssue[] } | SystemOneError } {
  if (error instanceof FormatValidation) return { status: 422, body: { detail: error.detail } };
  switch (error.code) {
    case 'invalid_request':
      return { status: 422, body: { detail: [{ loc: ['body'], msg: error.message, type: 'value_error' }] } };
    case 'invalid_json': {
      // Located at the character where JSON.parse gave up, when its message says.
      const at = /position (\d+)/.exec(error.message);
      return {
        status: 422,
        body: { detail: [{ loc: at ? ['body', Number(at[1])] : ['body'], msg: error.message, type: 'json_invalid' }] },
      };
    }
    case 'idempotency_key_reused':
      return { status: 422, body: { detail: [{ loc: ['header', 'idempotency-key'], msg: error.message, type: error.code }] } };
    default:
      return {
        status: error.status,
        body: {
          detail: {
            error_type: ERROR_TYPES[error.code] ?? 'api_error',
            message: error.message,
            x_code: error.code,
            ...(requestId === undefined ? {} : { x_request_id: requestId }),
          },
        },
      };
  }
}
