import type { z } from 'zod';
import { ErrorBody, type ErrorCode } from '../contract/index.js';

/**
 * The pieces both halves of the OpenAPI document build their routes from: the API's
 * (src/http/openapi.ts) and the browser's (src/web/openapi.ts).
 */

/** A JSON body of `schema`. */
export const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

/** An error response: the error body, its description naming the codes it can carry. */
export const failure = (description: string, codes: ErrorCode[]) => ({
  description: `${description} (code: ${codes.join(', ')})`,
  ...json(ErrorBody),
});

export const retryAfter = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' as const } },
};

/** The answers to a request body that is too large or not JSON. */
export const bodyFailures = {
  '413': failure('Body larger than 64 KiB', ['payload_too_large']),
  '415': failure('Body is not application/json', ['unsupported_media_type']),
};

/** The answers of a decision that is not paid for, or that the engine does not make. */
export const decisionFailures = {
  '402': failure('A funded pass is required, or its credits are too few', ['pass_required', 'insufficient_credits']),
  '429': {
    ...failure('Free allowance used up, site limit reached, or engine busy', ['free_limit_reached', 'rate_limited', 'engine_busy']),
    headers: retryAfter,
  },
  '502': failure('The engine answered unusably', ['engine_bad_response']),
  '503': { ...failure('The engine is unavailable', ['engine_unavailable']), headers: retryAfter },
  '504': failure('The engine did not answer in time', ['engine_timeout']),
};
