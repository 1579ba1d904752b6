import { Hono } from 'hono';
import type { DecisionService } from '../../service/service.js';
import { requireKey } from '../auth.js';
import type { AppEnv } from '../env.js';
import { methodNotAllowed } from '../errors.js';
import { rateLimitHeaders } from '../rate-limit-headers.js';

/** The key's own records: usage, revocation; and the public metrics. */
export function accountRoutes(service: DecisionService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/v1/usage', requireKey(service), async (c) => {
    const usage = await service.usage(c.get('caller'));
    const allowance = { limit: usage.freeLimit, remaining: usage.freeRemaining, resetSeconds: service.secondsToMidnight() };
    return c.json(usage, 200, rateLimitHeaders(allowance));
  });
  app.all('/v1/usage', methodNotAllowed(['GET']));

  app.delete('/v1/key', requireKey(service), async (c) => c.json(await service.revoke(c.get('caller'))));
  app.all('/v1/key', methodNotAllowed(['DELETE']));

  app.get('/v1/metrics', async (c) => c.json(await service.metrics()));
  app.all('/v1/metrics', methodNotAllowed(['GET']));
  return app;
}
