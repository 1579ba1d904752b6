import type { Context } from 'hono';
import type { DecideContext, PaidAnswer } from '../service/paid.js';
import type { AppEnv } from './env.js';
import { rateLimitHeaders } from './rate-limit-headers.js';

/** A paid request as the service takes it: who asks, from where, with which Idempotency-Key, since when, under which id. */
export function paidContext(c: Context<AppEnv>, idempotencyKey: string | undefined): DecideContext {
  return {
    caller: c.get('caller'),
    channel: 'api',
    ip: c.get('clientIp'),
    idempotencyKey,
    startedAt: c.get('startedAt'),
    requestId: c.get('requestId'),
  };
}

/** A paid answer as every route sends it: the body as committed (a replay's bytes again), the allowance it leaves, and whether it was replayed. */
export function paidResponse(c: Context<AppEnv>, answer: PaidAnswer<unknown>): Response {
  return c.body(answer.json, 200, {
    'Content-Type': 'application/json',
    ...rateLimitHeaders(answer.allowance),
    ...(answer.replayed ? { 'Idempotent-Replayed': 'true' } : {}),
  });
}
