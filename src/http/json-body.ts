import type { Context, Env, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { DecideError } from '../contract/index.js';
import type { AppEnv } from './env.js';
import { errorResponse } from './errors.js';

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * hono's bodyLimit, without its cost in the common case: it reads `c.req.raw.body`,
 * which makes @hono/node-server build a whole web Request (headers, a ReadableStream
 * over the socket) for every request, and the body is then read through web streams.
 * A body with a Content-Length (and no Transfer-Encoding) is judged by that header
 * alone, exactly as bodyLimit does, and read straight off the socket afterwards;
 * a chunked body still goes through bodyLimit, which counts the bytes as they arrive.
 */
export function limitBody<E extends Env>(maxSize: number, onError: (c: Context<E>) => Response | Promise<Response>): MiddlewareHandler<E> {
  const streamed = bodyLimit({ maxSize, onError: onError as (c: Context) => Response | Promise<Response> }) as unknown as MiddlewareHandler<E>;
  return async (c, next) => {
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return streamed(c, next);
    if (parseInt(length || '0', 10) > maxSize) return onError(c);
    await next();
  };
}

const limit = limitBody<AppEnv>(MAX_BODY_BYTES, (c) =>
  errorResponse(c, new DecideError('payload_too_large', 'the body is larger than 64 KiB')),
);

/** Size (413), then media type (415), then JSON syntax (400 invalid_json), in the contract's order. */
const parse: MiddlewareHandler<AppEnv> = async (c, next) => {
  const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    throw new DecideError(
      'unsupported_media_type',
      `Content-Type must be application/json${type ? `, not ${type}` : ''}`,
    );
  }
  const text = await c.req.text();
  if (text.trim() === '') throw new DecideError('invalid_json', 'the body is empty; a JSON object is required');
  try {
    c.set('body', JSON.parse(text));
  } catch (error) {
    throw new DecideError('invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
  }
  await next();
};

export const jsonBody: MiddlewareHandler<AppEnv>[] = [limit, parse];
