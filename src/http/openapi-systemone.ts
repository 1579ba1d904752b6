import type { ErrorCode } from '../contract/index.js';
import { SystemOneError, SystemOneValidationError } from '../contract/systemone-errors.js';
import { json, retryAfter } from './openapi-parts.js';

/**
 * The System One routes' failures in the OpenAPI document: the format's shapes
 * (contract/systemone-errors.ts), each response naming decide's codes (`x_code`).
 */

const failure = (description: string, codes: ErrorCode[]) => ({
  description: `${description} (x_code: ${codes.join(', ')})`,
  ...json(SystemOneError),
});

export const systemOneUnauthorized = failure('Key missing, malformed, unknown or revoked (error_type authentication_error)', [
  'unauthorized',
]);

export const systemOneFailures = {
  '401': systemOneUnauthorized,
  '402': failure('A funded pass is required, or its credits are too few (error_type billing_error)', ['insufficient_credits']),
  '409': failure('A request with this Idempotency-Key is still running (error_type conflict_error)', ['idempotency_in_progress']),
  '413': failure('Body larger than 1 MiB (error_type request_too_large)', ['payload_too_large']),
  '415': failure('Body is not application/json (error_type invalid_request_error)', ['unsupported_media_type']),
  '422': {
    description: 'The body is not JSON or not a valid request, the Idempotency-Key header is malformed, or reused with another body',
    ...json(SystemOneValidationError),
  },
  '429': {
    ...failure('Free allowance used up or site limit reached (rate_limit_error), or the engine busy (overloaded_error)', [
      'free_limit_reached',
      'rate_limited',
      'engine_busy',
    ]),
    headers: retryAfter,
  },
  '502': failure('The engine answered a question unusably; nothing was charged (error_type engine_error)', ['engine_bad_response']),
  '503': {
    ...failure('The engine or the ledger is unavailable; nothing was charged', ['engine_unavailable', 'ledger_unavailable']),
    headers: retryAfter,
  },
  '504': failure('The engine did not answer in time; nothing was charged (error_type engine_error)', ['engine_timeout']),
};
