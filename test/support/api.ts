import { request } from 'undici';
import { expect } from 'vitest';
import type { z } from 'zod';
import { DecisionResponse, ErrorBody, KeyCreated, KeyNamed, KeyRevoked, Metrics, PassRecord, Usage } from '../../src/contract/index.js';
import { ModelList, SystemOneResponse } from '../../src/contract/systemone.js';
import {
  AdminKeyCreated,
  AdminKeyList,
  AdminKeyRevoked,
  AdminPassCreated,
  AdminPassDetail,
  AdminPassList,
} from '../../src/contract/admin.js';
import { Health, Readiness } from '../../src/contract/health.js';
import { SystemOneError, SystemOneValidationError } from '../../src/contract/systemone-errors.js';

/** What a 200 of each route must look like: every answer the suite receives is checked. */
const SUCCESS: Record<string, z.ZodType> = {
  'POST /v1/decisions': DecisionResponse,
  'GET /v1/usage': Usage,
  'GET /v1/metrics': Metrics,
  'DELETE /v1/key': KeyRevoked,
  'POST /v1/pass': PassRecord,
  'GET /v1/pass': PassRecord,
  'POST /v1/keys': KeyCreated,
  'DELETE /v1/keys/{id}': KeyRevoked,
  'PATCH /v1/keys/{id}': KeyNamed,
  'POST /v1/web/decisions': DecisionResponse,
  'POST /v1/systemone': SystemOneResponse,
  'GET /v1/models': ModelList,
  'GET /v1/admin/keys': AdminKeyList,
  'POST /v1/admin/keys': AdminKeyCreated,
  'DELETE /v1/admin/keys/{ref}': AdminKeyRevoked,
  'GET /v1/admin/passes': AdminPassList,
  'POST /v1/admin/passes': AdminPassCreated,
  'GET /v1/admin/passes/{id}': AdminPassDetail,
  'GET /healthz': Health,
  'GET /readyz': Readiness,
};

/** The browser's pages and their assets: HTML (or a static file), not the API's JSON. */
const PAGES = /^\/(pass)?$|^\/assets\//;

/** The System One format's routes, which answer failures in that format's shapes. */
const FORMAT_ROUTES = new Set(['/v1/systemone', '/v1/models']);

/** The route a path belongs to, for the table above. */
const routeOf = (path: string) =>
  path
    .replace(/\?.*$/, '')
    .replace(/^\/v1\/keys\/[^/?]+/, '/v1/keys/{id}')
    .replace(/^\/v1\/admin\/keys\/[^/?]+/, '/v1/admin/keys/{ref}')
    .replace(/^\/v1\/admin\/passes\/[^/?]+/, '/v1/admin/passes/{id}');

/** Answers that are text, not the API's JSON. */
const TEXT = new Set(['/metrics']);

export interface ApiAnswer<T = any> {
  status: number;
  headers: Record<string, string>;
  body: T;
  text: string;
}

export interface CallOptions {
  key?: string;
  /** A value to send as JSON. */
  json?: unknown;
  /** Raw bytes/text to send as the body (with `headers` choosing the type). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/** Calls the real server and validates the answer against the contract's schemas. */
export async function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | Buffer | undefined = options.raw;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(base + path, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) flat[name] = Array.isArray(value) ? value.join(', ') : String(value);
  const isText = (PAGES.test(path) || TEXT.has(path)) && res.statusCode < 300;
  const parsed = text && !isText ? JSON.parse(text) : text || undefined;
  validate(method, path, res.statusCode, parsed, flat);
  // A caller's own id, when a plain token, is the request's; anything else got a made one.
  const sent = Object.entries(headers).find(([name]) => name.toLowerCase() === 'x-request-id')?.[1];
  const ownId = sent !== undefined && /^[\w=-]{1,128}$/.test(sent);
  expect(flat['x-request-id'], `${method} ${path}: X-Request-Id`).toMatch(ownId ? new RegExp(`^${sent}$`) : /^req_[0-9a-f]{32}$/);
  return { status: res.statusCode, headers: flat, body: parsed, text };
}

export function validate(method: string, path: string, status: number, body: unknown, headers: Record<string, string>) {
  // Every answer names its request (src/http/request-id.ts): the caller's own plain id, else
  // one made for it; the System One routes also as that format's SDKs read it.
  expect(headers['x-request-id'], `${method} ${path}: X-Request-Id`).toMatch(/^[\w=-]{1,128}$/);
  if (FORMAT_ROUTES.has(path)) expect(headers['x-typesafe-request-id']).toBe(headers['x-request-id']);
  if (path === '/openapi.json' && status === 200) return;
  if (TEXT.has(path) && status === 200) return void expect(headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  if (path === '/readyz' && status === 503) {
    expect(Readiness.safeParse(body).error, 'GET /readyz 503 outside the contract').toBeUndefined();
    return void expect(Number(headers['retry-after'])).toBeGreaterThan(0);
  }
  if (PAGES.test(path) && status === 200) {
    if (!path.startsWith('/assets/')) {
      expect(headers['content-type']).toMatch(/^text\/html/);
      expect(headers['content-security-policy']).toMatch(/default-src 'none'/);
    }
    return;
  }
  if (status >= 200 && status < 300) {
    const schema = SUCCESS[`${method} ${routeOf(path)}`];
    if (!schema) throw new Error(`no contract schema for ${method} ${path}`);
    const result = schema.safeParse(body);
    expect(result.error, `${method} ${path} answered outside the contract`).toBeUndefined();
    return;
  }
  expect(headers['content-type']).toMatch(/^application\/json/);
  const shape = FORMAT_ROUTES.has(path) ? (status === 422 ? SystemOneValidationError : SystemOneError) : ErrorBody;
  const result = shape.safeParse(body);
  expect(result.error, `${method} ${path} ${status} error body outside the contract`).toBeUndefined();
  // The error names the request as the header does (the format's 422 array has no room for it).
  const named = FORMAT_ROUTES.has(path)
    ? status === 422
      ? undefined
      : (body as SystemOneError).detail.x_request_id
    : (body as ErrorBody).requestId;
  if (!FORMAT_ROUTES.has(path) || status !== 422)
    expect(named, `${method} ${path} ${status}: the request's id in the body`).toBe(headers['x-request-id']);
  if (status === 429 || status === 503) expect(Number(headers['retry-after'])).toBeGreaterThan(0);
}
