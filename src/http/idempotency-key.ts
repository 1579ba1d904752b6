import type { Context } from 'hono';
import { ServiceError, IdempotencyKey } from '../contract/index.js';

/** The request's `Idempotency-Key`, checked; undefined when it sent none. */
export function idempotencyKeyOf(c: Context): string | undefined {
  const key = c.req.header('idempotency-key');
  if (key !== undefined && !IdempotencyKey.safeParse(key).success) {
    throw new ServiceError('invalid_request', 'Idempotency-Key header: must be 1 to 255 printable ASCII characters');
  }
  return key;
}
