import { Hono } from 'hono';
import type { DecisionService } from '../service/service.js';
import { accessLog, stdoutLog, type LogLine } from './access-log.js';
import type { AppEnv } from './env.js';
import { methodNotAllowed, notFound, onError } from './errors.js';
import { mcpRoutes } from '../mcp/route.js';
import { openApiDocument } from './openapi.js';
import { accountRoutes } from './routes/account.js';
import { decisionRoutes } from './routes/decisions.js';
import { systemOneRoutes } from './routes/systemone.js';
import { webRoutes, type WebOptions } from '../web/routes.js';

export interface AppOptions {
  service: DecisionService;
  /** Take the client IP from the first X-Forwarded-For hop (only behind a trusted proxy). */
  trustProxy?: boolean;
  /** Where access-log and error lines go (one JSON object a line); default stdout, batched per event-loop turn. */
  log?: LogLine;
  /** The browser pages (`/`, `/pass`) and their cookie-authenticated `/v1` routes; without it, the API alone. */
  web?: WebOptions;
}

/**
 * Routes are matched before authentication, so an unknown path is 404 and a wrong
 * method 405 whatever the key; CORS stays off (a server-to-server API).
 */
export function createApp(options: AppOptions): Hono<AppEnv> {
  const log = options.log ?? stdoutLog();
  const app = new Hono<AppEnv>();
  app.use('*', accessLog(log));
  app.onError(onError(log));
  app.notFound(notFound);

  decisionRoutes(app, options.service, options.trustProxy ?? false);
  accountRoutes(app, options.service);
  systemOneRoutes(app, options.service, options.trustProxy ?? false);
  mcpRoutes(app, { service: options.service, trustProxy: options.trustProxy ?? false, log });
  if (options.web) app.route('/', webRoutes(options.service, { ...options.web, trustProxy: options.trustProxy ?? false }));

  const openapi = JSON.stringify(openApiDocument());
  app.get('/openapi.json', (c) => c.body(openapi, 200, { 'Content-Type': 'application/json' }));
  app.all('/openapi.json', methodNotAllowed(['GET']));
  return app;
}
