import type { Context } from 'hono';
import type { UnofficialStatusCode } from 'hono/utils/http-status';
import { ServiceError } from '../contract/index.js';
import { formatErrorBody } from '../contract/systemone-errors.js';
import { AllowanceRefused } from '../service/refusals.js';
import { rateLimitHeaders } from './rate-limit-headers.js';

/**
 * Every non-2xx answer of the API: the contract's `{ error, code, requestId }`, plus
 * Retry-After when known; on the System One routes, that format's `{ detail }`
 * (systemone-errors.ts), the id as `detail.x_request_id`.
 */
export function errorResponse(c: Context, error: ServiceError, headers: Record<string, string> = {}): Response {
  const all: Record<string, string> = { ...headers };
  if (error.retryAfter !== undefined) all['Retry-After'] = String(Math.max(1, Math.ceil(error.retryAfter)));
  if (error.code === 'unauthorized') all['WWW-Authenticate'] = 'Bearer';
  if (error instanceof AllowanceRefused) Object.assign(all, rateLimitHeaders(error.allowance));
  if (c.get('errorFormat') === 'systemone') {
    const { status, body } = formatErrorBody(error, c.get('requestId'));
    return c.json(body, status as 400, all);
  }
  return c.json({ ...error.toBody(), requestId: c.get('requestId') }, error.status as 400, all);
}

export const notFound = (c: Context) => errorResponse(c, new ServiceError('not_found', `no route ${c.req.method} ${c.req.path}`));

export function methodNotAllowed(allowed: string[]) {
  return (c: Context) =>
    errorResponse(
      c,
      new ServiceError('method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(' or ')}`),
      { Allow: allowed.join(', ') },
    );
}

/**
 * The client closed its connection before its request body was complete: its own
 * doing, not the server's, so no error line and no 500. The status is nginx's 499
 * "client closed request", which no client ever receives (its connection is gone)
 * but which says in the access log exactly what happened.
 */
export class ClientClosedRequest extends Error {
  static readonly status = 499;
  constructor(cause: unknown) {
    super('the client closed the connection before its request body was complete', { cause });
    this.name = 'ClientClosedRequest';
  }
}

/** A ServiceError is an answer; anything else is a bug, logged and answered without its stack. */
export function onError(log: (line: string) => void) {
  return (error: Error, c: Context) => {
    if (error instanceof ServiceError) return errorResponse(c, error);
    if (error instanceof ClientClosedRequest) return c.body(null, ClientClosedRequest.status as UnofficialStatusCode);
    log(JSON.stringify({ level: 'error', path: c.req.path, request: c.get('requestId'), error: error.stack ?? String(error) }));
    return errorResponse(c, new ServiceError('internal_error', 'internal error; the failure was logged'));
  };
}
