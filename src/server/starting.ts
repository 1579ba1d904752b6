import { Hono } from 'hono';
import { ServiceError } from '../contract/index.js';
import type { AppEnv } from '../http/env.js';
import { errorResponse } from '../http/errors.js';
import { errorFormatByPath } from '../http/error-format.js';
import { requestId } from '../http/request-id.js';

/**
 * What `decide serve` answers between binding its port and being ready (the ledger
 * opened, the engine started: for the local engine, its model fetched and loaded,
 * which takes minutes the first time). The process is up (`/healthz` 200) but not
 * ready (`/readyz` 503), and every other request gets 503 with Retry-After rather
 * than a refused connection, so a load balancer holds traffic back and a client
 * retries.
 */
export function startingApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requestId());
  app.use('*', errorFormatByPath());
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) =>
    c.json({ status: 'starting', checks: { ledger: 'starting', engine: 'starting' } }, 503, { 'Retry-After': '5' }),
  );
  app.all('*', (c) =>
    errorResponse(c, new ServiceError('engine_unavailable', 'decide is starting: the engine is not ready yet; retry shortly', 5)),
  );
  return app;
}
