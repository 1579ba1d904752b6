import type { Context, Env, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { IncomingMessage } from 'node:http';
import { ServiceError } from '../contract/index.js';
import { parseKeepingOrder } from '../json/key-order.js';
import type { AppEnv } from './env.js';
import { ClientClosedRequest, errorResponse } from './errors.js';

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
  const streamed = bodyLimit({
    maxSize,
    onError: onError as (c: Context) => Response | Promise<Response>,
  }) as unknown as MiddlewareHandler<E>;
  return async (c, next) => {
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) {
      // bodyLimit reads the whole body before its `next`; the route runs outside it, so
      // only a failure of that read can be taken for the client's.
      let read = false;
      let refused: Response | undefined;
      try {
        refused = (await streamed(c, async () => {
          read = true;
        })) as Response | undefined;
      } catch (error) {
        throw clientClosedOr(c, error);
      }
      return read ? next() : refused;
    }
    if (parseInt(length || '0', 10) > maxSize) return onError(c);
    await next();
  };
}

const sizeText = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`);

const limit = (bytes: number) =>
  limitBody<AppEnv>(bytes, (c) => errorResponse(c, new ServiceError('payload_too_large', `the body is larger than ${sizeText(bytes)}`)));

/** Size (413), then media type (415), then JSON syntax (400 invalid_json), in the contract's order. */
const parse =
  (parseJson: (text: string) => unknown): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') {
      throw new ServiceError('unsupported_media_type', `Content-Type must be application/json${type ? `, not ${type}` : ''}`);
    }
    const text = await bodyText(c);
    if (text.trim() === '') throw new ServiceError('invalid_json', 'the body is empty; a JSON object is required');
    try {
      c.set('body', parseJson(text));
    } catch (error) {
      throw new ServiceError('invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
    }
    await next();
  };

/**
 * A body read that failed on a message the client never finished sending (it closed
 * the connection mid-body, or broke the framing, which closes it too) is the client's
 * doing: ClientClosedRequest. @hono/node-server's `env.incoming` is the judge rather
 * than the error, whose shape differs with the path the body took (Node's "aborted",
 * the adapter's "Client connection prematurely closed.", a web stream's abort
 * reason). Any other failure stays what it was.
 */
function clientClosedOr(c: Context, error: unknown): unknown {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming && !incoming.complete ? new ClientClosedRequest(error) : error;
}

/** The body as text; ClientClosedRequest when the client went away before its end. */
export async function bodyText(c: Context): Promise<string> {
  try {
    return await c.req.text();
  } catch (error) {
    throw clientClosedOr(c, error);
  }
}

export const jsonBody: MiddlewareHandler<AppEnv>[] = [limit(MAX_BODY_BYTES), parse(JSON.parse)];

/** The System One route's body: up to `bytes`, every object keeping its key order (json/key-order.ts). */
export const orderedJsonBody = (bytes: number): MiddlewareHandler<AppEnv>[] => [limit(bytes), parse(parseKeepingOrder)];
