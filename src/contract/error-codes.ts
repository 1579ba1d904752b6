/**
 * The codes without zod: the client's DecideError knows them before `decide ask`
 * has sent anything, and loads the schemas of the error body (./errors.ts) only
 * when an answer comes back.
 */

/** Every `code` the service answers with, and the HTTP status it travels with. */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_request: 400,
  unauthorized: 401,
  pass_missing: 401,
  pass_required: 402,
  forbidden_origin: 403,
  verification_failed: 403,
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
  verification_unavailable: 503,
  ledger_unavailable: 503,
  engine_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
