import { Hono } from 'hono';
import { invalidRequest } from '../../contract/index.js';
import { type ModelList, SYSTEM_ONE_LIMITS, SystemOneRequest } from '../../contract/systemone.js';
import { utcDay } from '../../service/clock.js';
import type { DecisionService } from '../../service/service.js';
import { requireKey } from '../auth.js';
import type { AppEnv } from '../env.js';
import { methodNotAllowed } from '../errors.js';
import { idempotencyKeyOf } from '../idempotency-key.js';
import { jsonBody } from '../json-body.js';
import { rateLimitHeaders } from '../rate-limit-headers.js';

/**
 * decide as a System One provider: `POST /v1/systemone` answers the format's requests
 * with the configured engine, each question paid as one standard decision, and
 * `GET /v1/models` names the one model it answers with. Same keys, same errors.
 */
export function systemOneRoutes(service: DecisionService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/v1/systemone', requireKey(service), ...jsonBody, async (c) => {
    const parsed = SystemOneRequest.safeParse(c.get('body'));
    if (!parsed.success) throw invalidRequest(parsed.error);
    const answer = await service.systemOne(parsed.data, {
      caller: c.get('caller'),
      channel: 'api',
      ip: c.get('clientIp'),
      idempotencyKey: idempotencyKeyOf(c),
      startedAt: c.get('startedAt'),
    });
    const { access } = answer;
    // Once a question is paid by credit, the free allowance is gone (or held back by the site's limits).
    const remaining = access === undefined ? null : access.type === 'free' ? access.freeRemaining : 0;
    return c.body(answer.json, 200, {
      'Content-Type': 'application/json',
      ...rateLimitHeaders(service.limits.freePerKey, remaining, service.secondsToMidnight()),
      ...(answer.replayed ? { 'Idempotent-Replayed': 'true' } : {}),
    });
  });
  app.all('/v1/systemone', methodNotAllowed(['POST']));

  // decide cannot know when the engine's model was released: the day this server began answering with it.
  const models = JSON.stringify({
    models: [
      {
        name: service.model,
        description:
          `${service.model}, answered by decide's ${service.engineName} engine: noul, choice (2 to ${SYSTEM_ONE_LIMITS.options} ` +
          `labels) and score (2 to ${SYSTEM_ONE_LIMITS.levels} levels) questions, each paid as one standard decision.`,
        release_date: utcDay(service.now()),
      },
    ],
  } satisfies ModelList);
  app.get('/v1/models', requireKey(service), (c) => c.body(models, 200, { 'Content-Type': 'application/json' }));
  app.all('/v1/models', methodNotAllowed(['GET']));
  return app;
}
