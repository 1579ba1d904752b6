import { Hono } from 'hono';
import { DecisionRequest, IN_WORDS, invalidRequest } from '../../contract/index.js';
import type { DecisionService } from '../../service/service.js';
import { requireKey } from '../auth.js';
import type { AppEnv } from '../env.js';
import { methodNotAllowed } from '../errors.js';
import { idempotencyKeyOf } from '../idempotency-key.js';
import { jsonBody } from '../json-body.js';
import { paidContext, paidResponse } from '../paid-answer.js';

export function decisionRoutes(service: DecisionService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/v1/decisions', requireKey(service), ...jsonBody, async (c) => {
    const parsed = DecisionRequest.safeParse(c.get('body'), IN_WORDS);
    if (!parsed.success) throw invalidRequest(parsed.error);
    // A refusal for want of free decisions carries its RateLimit headers itself (errors.ts).
    return paidResponse(c, await service.decide(parsed.data, paidContext(c, idempotencyKeyOf(c))));
  });
  app.all('/v1/decisions', methodNotAllowed(['POST']));
  return app;
}
