import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  DecisionResponse,
  KeyCreated,
  KeyNameChange,
  KeyNamed,
  KeyRevoked,
  PassCreate,
  PassRecord,
  WebDecisionRequest,
} from '../contract/index.js';
import { bodyFailures, decisionFailures, failure, json, retryAfter } from '../http/openapi-parts.js';

/**
 * The browser's routes in the OpenAPI document, from the same schemas. They answer
 * only the service's own pages (same Origin, pass cookie), but they are API routes
 * like the others and described as such.
 */

export const PASS_COOKIE_SCHEME = {
  passCookie: {
    type: 'apiKey' as const,
    in: 'cookie' as const,
    name: 'decide_pass',
    description: 'The signed pass cookie set by POST /v1/pass (`__Host-decide_pass` over https).',
  },
};

const security = [{ passCookie: [] }];
const noPass = failure('No valid pass cookie', ['pass_missing']);
const foreign = failure('The request does not come from the service’s own pages (Origin)', ['forbidden_origin']);

export function webPaths(): ZodOpenApiPathsObject {
  return {
    '/v1/pass': {
      post: {
        operationId: 'createPass',
        summary: 'Verify this browser once and get its pass (sets the pass cookie)',
        security: [],
        requestBody: { required: false, ...json(PassCreate) },
        responses: {
          '200': { description: 'The browser already holds a valid pass: not verified again', ...json(PassRecord) },
          '201': {
            description: 'Verified: a new pass, and its cookie',
            headers: { 'Set-Cookie': { description: 'The pass cookie (HttpOnly, SameSite=Strict)', schema: { type: 'string' } } },
            ...json(PassRecord),
          },
          '400': failure('Invalid body, or no verification token', ['invalid_json', 'invalid_request']),
          '403': failure('Another origin, or the verification did not pass', ['forbidden_origin', 'verification_failed']),
          ...bodyFailures,
          '429': { ...failure('This IP verified 5 browsers today', ['rate_limited']), headers: retryAfter },
          '503': { ...failure('The verification provider is unavailable', ['verification_unavailable']), headers: retryAfter },
        },
      },
      get: {
        operationId: 'getPass',
        summary: "The pass's balance, its keys and today's free use",
        security,
        responses: { '200': { description: 'Pass record', ...json(PassRecord) }, '401': noPass, '403': foreign },
      },
    },
    '/v1/keys': {
      post: {
        operationId: 'createKey',
        summary:
          "Create a key linked to the browser's pass (2 per IP per UTC day, besides a funded pass's replacement of its revoked keys); the key is shown this once",
        security,
        responses: {
          '201': {
            description: 'The new key',
            ...json(KeyCreated),
            // What a client does next with it: revoke it by its id (a fuzzer follows this too).
            links: { DeleteThisKey: { operationId: 'deletePassKey', parameters: { id: '$response.body#/id' } } },
          },
          '401': noPass,
          '403': foreign,
          '429': {
            ...failure('This IP created 2 keys today; a pass that held nothing is removed, and its cookie cleared', ['rate_limited']),
            headers: { ...retryAfter, 'Set-Cookie': { description: 'Clears the cookie of a removed pass', schema: { type: 'string' } } },
          },
        },
      },
    },
    '/v1/keys/{id}': {
      patch: {
        operationId: 'namePassKey',
        summary: "Name one of the pass's active keys, or clear its name",
        security,
        requestParams: { path: z.object({ id: z.string().meta({ description: 'The key id, from GET /v1/pass.' }) }) },
        requestBody: { required: true, ...json(KeyNameChange) },
        responses: {
          '200': { description: 'Key named', ...json(KeyNamed) },
          '400': failure('Invalid body, or a name outside the rule', ['invalid_json', 'invalid_request']),
          '401': noPass,
          '403': foreign,
          '404': failure('The pass has no active key with this id', ['not_found']),
          ...bodyFailures,
        },
      },
      delete: {
        operationId: 'deletePassKey',
        summary: "Revoke one of the pass's keys",
        security,
        requestParams: { path: z.object({ id: z.string().meta({ description: 'The key id, from GET /v1/pass.' }) }) },
        responses: {
          '200': { description: 'Key revoked', ...json(KeyRevoked) },
          '401': noPass,
          '403': foreign,
          '404': failure('The pass has no active key with this id', ['not_found']),
        },
      },
    },
    '/v1/web/decisions': {
      post: {
        operationId: 'createWebDecision',
        summary: "A decision from the pass page, paid by one of the pass's keys (counted as web)",
        security,
        requestBody: { required: true, ...json(WebDecisionRequest) },
        responses: {
          '200': { description: 'The decision', ...json(DecisionResponse) },
          '400': failure('Invalid body, or keyId is not an active key of the pass', ['invalid_json', 'invalid_request']),
          '401': noPass,
          '403': foreign,
          ...bodyFailures,
          ...decisionFailures,
        },
      },
    },
  };
}
