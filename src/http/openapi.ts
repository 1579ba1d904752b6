import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import { PASS_COOKIE_SCHEME, webPaths } from '../web/openapi.js';
import {
  DecisionRequest,
  DecisionResponse,
  ErrorBody,
  KeyRevoked,
  Metrics,
  Usage,
  type ErrorCode,
} from '../contract/index.js';

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
const failure = (description: string, codes: ErrorCode[]) => ({
  description: `${description} (code: ${codes.join(', ')})`,
  ...json(ErrorBody),
});
const unauthorized = failure('Key missing, malformed, unknown or revoked', ['unauthorized']);
const retryAfter = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' as const } },
};

/** The OpenAPI document, generated from the contract's zod schemas (never written by hand). */
export function openApiDocument(): ReturnType<typeof createDocument> {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Structured Decision API',
      version: '1.0.0',
      description:
        'Probabilities, a signal and a context-sufficiency check for choice, yes/no and score decisions. ' +
        'Call it from a server, never from public client code.',
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'dcd_api_… key' }, ...PASS_COOKIE_SCHEME },
    },
    paths: {
      '/v1/decisions': {
        post: {
          summary: 'Make a structured decision',
          security: [{ bearer: [] }],
          requestParams: {
            header: z.object({
              'idempotency-key': z
                .string()
                .optional()
                .meta({ description: 'Replays the first successful answer for 24 h (1 to 255 printable ASCII).' }),
            }),
          },
          requestBody: { required: true, ...json(DecisionRequest) },
          responses: {
            '200': { description: 'The decision', ...json(DecisionResponse) },
            '400': failure('Invalid body', ['invalid_json', 'invalid_request']),
            '401': unauthorized,
            '402': failure('A funded pass is required, or its credits are too few', ['pass_required', 'insufficient_credits']),
            '409': failure('A request with this Idempotency-Key is still running', ['idempotency_in_progress']),
            '413': failure('Body larger than 64 KiB', ['payload_too_large']),
            '415': failure('Body is not application/json', ['unsupported_media_type']),
            '422': failure('Idempotency-Key reused with another body', ['idempotency_key_reused']),
            '429': {
              ...failure('Free allowance used up, site limit reached, or engine busy', [
                'free_limit_reached',
                'rate_limited',
                'engine_busy',
              ]),
              headers: retryAfter,
            },
            '502': failure('The engine answered unusably', ['engine_bad_response']),
            '503': { ...failure('The engine is unavailable', ['engine_unavailable']), headers: retryAfter },
            '504': failure('The engine did not answer in time', ['engine_timeout']),
          },
        },
      },
      '/v1/usage': {
        get: {
          summary: "Today's free allowance and the linked pass's balance",
          security: [{ bearer: [] }],
          responses: { '200': { description: 'Usage record', ...json(Usage) }, '401': unauthorized },
        },
      },
      '/v1/metrics': {
        get: {
          summary: 'Measured processing times for the current UTC day',
          responses: { '200': { description: 'Metrics record', ...json(Metrics) } },
        },
      },
      '/v1/key': {
        delete: {
          summary: 'Revoke the key used to authenticate',
          security: [{ bearer: [] }],
          responses: { '200': { description: 'Key revoked', ...json(KeyRevoked) }, '401': unauthorized },
        },
      },
      ...webPaths(),
    },
  });
}
