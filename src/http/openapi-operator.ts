import { z } from 'zod';
import {
  AdminKeyCreate,
  AdminKeyCreated,
  AdminKeyList,
  AdminKeyRevoked,
  AdminPassCreated,
  AdminPassDetail,
  AdminPassList,
} from '../contract/admin.js';
import { Health, Readiness } from '../contract/health.js';
import { bodyFailures, failure, json, retryAfter } from './openapi-parts.js';

/** The security scheme of the operator API: the admin token, not an API key. */
export const ADMIN_SCHEME = { adminToken: { type: 'http' as const, scheme: 'bearer', description: "The server's DECIDE_ADMIN_TOKEN" } };

const admin = [{ adminToken: [] }];
const unauthorized = failure('Admin token missing or wrong', ['unauthorized']);
const slowed = failure('More than 10 wrong tokens a minute from this address: refused until the minute is over (Retry-After)', [
  'rate_limited',
]);
const off = failure('Unknown pass or key, or the operator API is off on this server', ['not_found']);
const ref = z.object({
  ref: z.string().meta({ description: "A key id (key_…), its hint (dcd_api_…wxyz) or the hint's last four characters." }),
});
const passId = z.object({ id: z.string() });

/** The operator API's routes (docs/api.md "Operator API") and the health checks, for the OpenAPI document. */
export function operatorPaths() {
  return {
    '/v1/admin/keys': {
      get: {
        operationId: 'adminListKeys',
        summary: "Every key (or one pass's), with its name, last use and revocation",
        security: admin,
        requestParams: { query: z.object({ pass: z.string().optional() }) },
        responses: {
          '200': { description: 'The keys, oldest first', ...json(AdminKeyList) },
          '401': unauthorized,
          '429': slowed,
          '404': off,
        },
      },
      post: {
        operationId: 'adminCreateKey',
        summary: 'Create a key, on a pass or a new one; shown once',
        security: admin,
        requestBody: { required: true, ...json(AdminKeyCreate) },
        responses: {
          '201': { description: 'The key, shown this once', ...json(AdminKeyCreated) },
          '400': failure('Invalid body', ['invalid_json', 'invalid_request']),
          '401': unauthorized,
          '429': slowed,
          '404': off,
          ...bodyFailures,
        },
      },
    },
    '/v1/admin/keys/{ref}': {
      delete: {
        operationId: 'adminRevokeKey',
        summary: 'Revoke a key by id or hint',
        security: admin,
        requestParams: { path: ref },
        responses: {
          '200': { description: 'Revoked (or revoked before)', ...json(AdminKeyRevoked) },
          '400': failure('The reference names no key, or a hint several keys share', ['invalid_request']),
          '401': unauthorized,
          '429': slowed,
          '404': off,
        },
      },
    },
    '/v1/admin/passes': {
      get: {
        operationId: 'adminListPasses',
        summary: 'Every pass, with its credits and key counts',
        security: admin,
        responses: {
          '200': { description: 'The passes, oldest first', ...json(AdminPassList) },
          '401': unauthorized,
          '429': slowed,
          '404': off,
        },
      },
      post: {
        operationId: 'adminCreatePass',
        summary: 'Create an empty pass',
        security: admin,
        responses: { '201': { description: 'The pass', ...json(AdminPassCreated) }, '401': unauthorized, '429': slowed, '404': off },
      },
    },
    '/v1/admin/passes/{id}': {
      get: {
        operationId: 'adminShowPass',
        summary: "A pass's balance and keys",
        security: admin,
        requestParams: { path: passId },
        responses: { '200': { description: 'The pass', ...json(AdminPassDetail) }, '401': unauthorized, '429': slowed, '404': off },
      },
    },
    '/healthz': {
      get: {
        operationId: 'health',
        summary: 'The process answers',
        security: [],
        responses: { '200': { description: 'Up', ...json(Health) } },
      },
    },
    '/readyz': {
      get: {
        operationId: 'readiness',
        summary: 'The ledger takes writes and the engine answers',
        security: [],
        responses: {
          '200': { description: 'Ready', ...json(Readiness) },
          '503': { description: 'Not ready, or starting: the failing check named', headers: retryAfter, ...json(Readiness) },
        },
      },
    },
  };
}
