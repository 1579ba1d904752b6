import { Hono } from 'hono';
import { accessLog, stdoutLog, type LogLine } from '../http/access-log.js';
import type { AppEnv } from '../http/env.js';
import { methodNotAllowed, notFound, onError } from '../http/errors.js';
import type { TrustProxy } from '../config/trust-proxy.js';
import { hostCheck } from '../http/host-check.js';
import { requestContext, trustOf } from '../http/request-context.js';
import { errorFormatByPath } from '../http/error-format.js';
import { requestId } from '../http/request-id.js';
import { accountRoutes } from '../http/routes/account.js';
import { adminRoutes, type AdminOptions } from '../http/routes/admin.js';
import { healthRoutes } from '../http/routes/health.js';
import { decisionRoutes } from '../http/routes/decisions.js';
import { systemOneRoutes } from '../http/routes/systemone.js';
import { mcpRoutes } from '../mcp/route.js';
import type { DecisionService } from '../service/service.js';
import { webRoutes, type WebOptions } from '../web/routes.js';
import { openApiDocument } from './openapi.js';

export interface AppOptions {
  service: DecisionService;
  /** The proxies in front whose X-Forwarded-For hops are believed (http/client-ip.ts); `true` is one. */
  trustProxy?: boolean | TrustProxy;
  /** Bits of an IPv6 address the per-IP limits count as one client (DECIDE_IPV6_PREFIX); 64 by default. */
  ipv6Prefix?: number;
  /** The origin clients use (DECIDE_PUBLIC_URL), when a proxy makes it differ from the Host the server sees. */
  publicUrl?: string | null;
  /** Where access-log and error lines go (one JSON object a line); default stdout, batched per event-loop turn. */
  log?: LogLine;
  /** The browser pages (`/`, `/pass`) and their cookie-authenticated `/v1` routes; without it (DECIDE_WEB=off), the API alone. */
  web?: WebOptions;
  /** The operator API (`/v1/admin/…`) and its token; without it, those routes say it is off. */
  admin?: AdminOptions;
  /** DECIDE_METRICS_TOKEN: `GET /metrics` asks for it when set. */
  metricsToken?: string | null;
  /** Where readiness checks tell the operator that one started or stopped failing; stderr by default. */
  warn?: (line: string) => void;
}

/**
 * The composition root: every channel's routes, each a Hono app of its own, mounted
 * on one app behind the same access log, request context (client IP, own origin)
 * and error handling. Routes are matched before authentication, so an unknown path
 * is 404 and a wrong method 405 whatever the key; CORS stays off (a server-to-server
 * API).
 */
export function createApp(options: AppOptions): Hono<AppEnv> {
  const log = options.log ?? stdoutLog();
  const app = new Hono<AppEnv>();
  app.use('*', requestId());
  app.use('*', errorFormatByPath());
  app.use('*', accessLog(log));
  const trust = trustOf(options.trustProxy);
  const behindProxy = trust.kind !== 'off';
  const publicUrl = options.publicUrl ?? null;
  app.use('*', requestContext({ trustProxy: trust, publicUrl, ipv6Prefix: options.ipv6Prefix }));
  // Every route but /mcp, which answers the same refusal in JSON-RPC.
  app.use('*', hostCheck(behindProxy, publicUrl, ['/mcp']));
  app.onError(onError(log));
  app.notFound(notFound);

  const warn = options.warn ?? ((line: string) => void process.stderr.write(`decide: ${line}\n`));
  app.route('/', healthRoutes(options.service, { metricsToken: options.metricsToken ?? null, warn }));
  app.route('/', adminRoutes(options.admin));
  app.route('/', decisionRoutes(options.service));
  app.route('/', accountRoutes(options.service));
  app.route('/', systemOneRoutes(options.service));
  app.route('/', mcpRoutes({ service: options.service, trustProxy: behindProxy, publicUrl, log }));
  if (options.web) app.route('/', webRoutes(options.service, options.web));

  const openapi = JSON.stringify(openApiDocument(options.publicUrl ?? null));
  app.get('/openapi.json', (c) => c.body(openapi, 200, { 'Content-Type': 'application/json' }));
  app.all('/openapi.json', methodNotAllowed(['GET']));
  return app;
}
