import { Hono } from 'hono';
import { ServiceError, DecisionRequest, invalidRequest } from '../../contract/index.js';
import type { DecisionService } from '../../service/service.js';
import { requireKey } from '../auth.js';
import type { AppEnv } from '../env.js';
import { errorResponse, methodNotAllowed } from '../errors.js';
import { idempotencyKeyOf } from '../idempotency-key.js';
import { jsonBody } from '../json-body.js';
import { rateLimitHeaders } from '../rate-limit-headers.js';

export function decisionRoutes(service: DecisionService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/v1/decisions', requireKey(service), ...jsonBody, async (c) => {
    const parsed = DecisionRequest.safeParse(c.get('body'));
    if (!parsed.success) throw invalidRequest(parsed.error);
    const idempotencyKey = idempotencyKeyOf(c);
    const freeLimit = service.limits.freePerKey;
    try {
      const answer = await service.decide(parsed.data, {
        caller: c.get('caller'),
        channel: 'api',
        ip: c.get('clientIp'),
        idempotencyKey,
        startedAt: c.get('startedAt'),
        requestId: c.get('requestId'),
      });
      const { access } = answer.response;
      // A credit is only spent on a standard decision once the free allowance is gone.
      const remaining = access.type === 'free' ? access.freeRemaining : parsed.data.depth === 'standard' ? 0 : null;
      return c.body(answer.json, 200, {
        'Content-Type': 'application/json',
        ...rateLimitHeaders(freeLimit, remaining, service.secondsToMidnight()),
        ...(answer.replayed ? { 'Idempotent-Replayed': 'true' } : {}),
      });
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'free_limit_reached') {
        return errorResponse(c, error, rateLimitHeaders(freeLimit, 0, error.retryAfter ?? 1));
      }
      throw error;
    }
  });
  app.all('/v1/decisions', methodNotAllowed(['POST']));
  return app;
}
