import { z } from 'zod';
import { createDocument, type ZodOpenApiObject, type ZodOpenApiOverrideContext } from 'zod-openapi';
import { PASS_COOKIE_SCHEME, webPaths } from '../web/openapi.js';
import { DecisionRequest, DecisionResponse, IdempotencyKey, KeyRevoked, Metrics, Usage } from '../contract/index.js';
import { ModelList, SystemOneRequest, SystemOneResponse } from '../contract/systemone.js';
import { bodyFailures, decisionFailures, failure, json } from '../http/openapi-parts.js';
import { systemOneFailures, systemOneUnauthorized } from '../http/openapi-systemone.js';
import { ADMIN_SCHEME, operatorPaths } from '../http/openapi-operator.js';

const idempotencyKeyHeader = z.object({
  'idempotency-key': IdempotencyKey.optional().meta({
    description: 'Replays the first successful answer for 24 h (1 to 255 printable ASCII).',
  }),
});

const unauthorized = failure('Key missing, malformed, unknown or revoked', ['unauthorized']);

/** What a paid request (a decision, a System One request) can fail with, besides its answer. */
const paidFailures = {
  '400': failure('Invalid body', ['invalid_json', 'invalid_request']),
  '401': unauthorized,
  '409': failure('A request with this Idempotency-Key is still running', ['idempotency_in_progress']),
  '422': failure('Idempotency-Key reused with another body', ['idempotency_key_reused']),
  ...bodyFailures,
  ...decisionFailures,
};

/**
 * A request's defaulted field (`depth`) keeps its default in words, not as `default`.
 * The request schemas are zod's input side, the field optional; but openapi-typescript,
 * with its default options, types a component's property that has a `default` as always
 * present (right for an answer, which the server fills in, wrong for a request), so a
 * request without `depth` did not compile against the generated types.
 */
function defaultInWords({ jsonSchema, io }: ZodOpenApiOverrideContext): void {
  if (io !== 'input' || jsonSchema.default === undefined) return;
  const said = `Default: ${JSON.stringify(jsonSchema.default)}.`;
  jsonSchema.description = jsonSchema.description ? `${jsonSchema.description} ${said}` : said;
  delete jsonSchema.default;
}

/**
 * The OpenAPI document, generated from the contract's zod schemas (never written by
 * hand). Every operation has an `operationId` (a generated client's method names) and
 * says its security, `[]` where none is needed; `servers` is DECIDE_PUBLIC_URL when the
 * operator set one, else this server, wherever the document was fetched from.
 */
export function openApiDocument(publicUrl: string | null = null): ReturnType<typeof createDocument> {
  const document: ZodOpenApiObject = {
    openapi: '3.1.0',
    servers: [{ url: publicUrl ?? '/', description: publicUrl ? 'This service' : 'The server this document was fetched from' }],
    security: [{ bearer: [] }],
    info: {
      title: 'Structured Decision API',
      version: '1.0.0',
      description:
        'Probabilities, a signal and a context-sufficiency check for choice, yes/no and score decisions. ' +
        'Call it from a server, never from public client code.',
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'dcd_api_… key' }, ...PASS_COOKIE_SCHEME, ...ADMIN_SCHEME },
    },
    paths: {
      '/v1/decisions': {
        post: {
          operationId: 'createDecision',
          summary: 'Make a structured decision',
          security: [{ bearer: [] }],
          requestParams: { header: idempotencyKeyHeader },
          requestBody: { required: true, ...json(DecisionRequest) },
          responses: {
            '200': { description: 'The decision', ...json(DecisionResponse) },
            ...paidFailures,
          },
        },
      },
      '/v1/usage': {
        get: {
          operationId: 'getUsage',
          summary: "Today's free allowance and the linked pass's balance",
          security: [{ bearer: [] }],
          responses: { '200': { description: 'Usage record', ...json(Usage) }, '401': unauthorized },
        },
      },
      '/v1/metrics': {
        get: {
          operationId: 'getMetrics',
          summary: 'Measured processing times for the current UTC day',
          security: [],
          responses: { '200': { description: 'Metrics record', ...json(Metrics) } },
        },
      },
      '/v1/key': {
        delete: {
          operationId: 'revokeKey',
          summary: 'Revoke the key used to authenticate',
          security: [{ bearer: [] }],
          responses: { '200': { description: 'Key revoked', ...json(KeyRevoked) }, '401': unauthorized },
        },
      },
      '/v1/systemone': {
        post: {
          operationId: 'systemOne',
          summary: 'Answer System One questions about a state (each question one standard decision)',
          description:
            'The System One wire format, as its clients send it. Each question costs what a standard decision costs, ' +
            'all reserved up front; every question is answered, or the request fails whole and costs nothing. ' +
            "Failures are in the format's shapes: 422 `{ detail: [{ loc, msg, type }] }`, else `{ detail: { error_type, message, x_code } }`.",
          security: [{ bearer: [] }],
          requestParams: { header: idempotencyKeyHeader },
          requestBody: { required: true, ...json(SystemOneRequest) },
          responses: {
            '200': { description: 'One answer per question, in request order', ...json(SystemOneResponse) },
            ...systemOneFailures,
          },
        },
      },
      '/v1/models': {
        get: {
          operationId: 'listModels',
          summary: 'The model this server answers System One requests with',
          security: [{ bearer: [] }],
          responses: { '200': { description: 'Model cards', ...json(ModelList) }, '401': systemOneUnauthorized },
        },
      },
      ...webPaths(),
      ...operatorPaths(),
    },
  };
  return createDocument(document, { override: defaultInWords });
}
