import { Hono } from 'hono';
import type { DecisionService } from '../../service/service.js';
import { requireToken } from '../bearer-token.js';
import type { AppEnv } from '../env.js';
import { methodNotAllowed } from '../errors.js';

/** How long one engine probe's verdict stands: a load balancer asking every second costs the engine one call in ten seconds. */
export const ENGINE_CHECK_MS = 10_000;
/** The most a readiness check waits for the ledger or the engine before calling it failing. */
const CHECK_TIMEOUT_MS = 5_000;

export interface HealthOptions {
  /** DECIDE_METRICS_TOKEN: when set, `/metrics` asks for it. */
  metricsToken: string | null;
  /** The operator's line when a check starts or stops failing (never on every probe). */
  warn: (line: string) => void;
}

type Check = 'ok' | 'failing';

/**
 * What a load balancer and an orchestrator ask, and what Prometheus scrapes:
 * - `GET /healthz`: the process answers (liveness). Nothing else is checked, so a
 *   slow database never gets a healthy process restarted.
 * - `GET /readyz`: this server can serve decisions now (readiness): the ledger takes
 *   a write (Store.ping) and the engine answers (a provider's probe, its models list,
 *   at most once per ENGINE_CHECK_MS; a local engine is ready once loaded, which it is
 *   by the time this app serves). 503 with which check failed, never why: the body is
 *   public, the reasons (URLs, errors) go to the operator's log when a check turns.
 * - `GET /metrics`: the Prometheus text format (telemetry/metrics.ts).
 */
export function healthRoutes(service: DecisionService, options: HealthOptions): Hono<AppEnv> {
  const { warn } = options;
  const app = new Hono<AppEnv>();
  const engineCheck = cachedCheck('engine', (signal) => service.probeEngine(signal), ENGINE_CHECK_MS, warn);
  const ledgerCheck = cachedCheck('ledger', () => service.ping(), 0, warn);

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.all('/healthz', methodNotAllowed(['GET']));

  app.get('/readyz', async (c) => {
    const [ledger, engineState] = await Promise.all([ledgerCheck(), engineCheck()]);
    const ready = ledger === 'ok' && engineState === 'ok';
    const body = { status: ready ? 'ready' : 'not_ready', checks: { ledger, engine: engineState } };
    return ready ? c.json(body) : c.json(body, 503, { 'Retry-After': '5' });
  });
  app.all('/readyz', methodNotAllowed(['GET']));

  if (options.metricsToken) app.use('/metrics', requireToken(options.metricsToken, 'the metrics token'));
  app.get('/metrics', async (c) => {
    const { text, contentType } = await service.telemetry.scrape();
    return c.body(text, 200, { 'Content-Type': contentType });
  });
  app.all('/metrics', methodNotAllowed(['GET']));
  return app;
}

/**
 * A check run at most once per `freshMs` (0: every time), callers at once sharing one
 * run; a failure or a recovery is told to the operator once, when it happens.
 */
function cachedCheck(
  name: string,
  run: (signal: AbortSignal) => Promise<void>,
  freshMs: number,
  warn: (line: string) => void,
): () => Promise<Check> {
  let verdict: { state: Check; at: number } | undefined;
  let running: Promise<Check> | undefined;
  let failing = false;
  return () => {
    if (verdict && Date.now() - verdict.at < freshMs) return Promise.resolve(verdict.state);
    running ??= (async () => {
      const signal = AbortSignal.timeout(CHECK_TIMEOUT_MS);
      let state: Check = 'ok';
      try {
        await Promise.race([
          run(signal),
          new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)))),
        ]);
        if (failing) warn(`readiness: the ${name} check passes again`);
        failing = false;
      } catch (error) {
        state = 'failing';
        if (!failing) warn(`readiness: the ${name} check fails: ${(error as Error).message}`);
        failing = true;
      }
      verdict = { state, at: Date.now() };
      running = undefined;
      return state;
    })();
    return running;
  };
}
