import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { DecideError } from '../contract/index.js';
import type { AppEnv } from './env.js';
import { errorResponse } from './errors.js';

export const MAX_BODY_BYTES = 64 * 1024;

const limit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: (c) => errorResponse(c, new DecideError('payload_too_large', 'the body is larger than 64 KiB')),
});

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

export const jsonBody: MiddlewareHandler<AppEnv>[] = [limit as MiddlewareHandler<AppEnv>, parse];
