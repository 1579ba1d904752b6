import { type Config, readConfig } from '../config/config.js';
import { tokenFileWarning } from '../config/tokens.js';
import type { Engine } from '../engine/engine.js';
import { createApp } from '../server/app.js';
import { listen, type RunningServer } from '../server/listen.js';
import { startingApp } from '../server/starting.js';
import { existsSync, rmSync } from 'node:fs';
import { isPostgresUrl, openStore } from '../ledger/open.js';
import { ledgerName } from './operator/ledger.js';
import type { Store } from '../ledger/store.js';
import { limitsOf } from '../service/limits.js';
import { DecisionService } from '../service/service.js';
import { Telemetry } from '../telemetry/metrics.js';
import { resolveCookieSecret, webConfig } from '../web/config.js';
import { calibrationModel } from './engine-identity.js';
import { engineEnv, engineStarter } from './engine-startup.js';
import { EXIT, Failure } from './exit-codes.js';
import { ledgerFailure } from './ledger-access.js';
import { defaultDebias } from '../decision/debias.js';
import { describeScalings, type Scalings, scalingsOf } from '../decision/scaling.js';
import { describeMeasurement } from './measurement.js';
import { checkEngine } from './engine-check.js';
import { exposureWarnings } from './exposure.js';
import { stopWithNpm } from './parent-watch.js';
import type { Debias } from '../contract/debias.js';
import { counted } from '../contract/words.js';

export interface ServeFlags {
  port: number;
  host: string;
  db: string;
  model?: string;
  threads?: number;
  debias?: Debias;
  /** Exit 69 when a remote engine does not answer at start, rather than warn and serve. */
  checkEngine?: boolean;
}

/**
 * Every setting `serve` reads (config/config.ts), from the environment with the
 * engine's flags over their variables, read once before anything starts: a mistake
 * is exit 78 naming the variable. What runs below is handed these, and reads no
 * environment.
 */
function settings(flags: ServeFlags) {
  let config: Config;
  try {
    config = readConfig(engineEnv(flags));
  } catch (error) {
    throw new Failure((error as Error).message, EXIT.config);
  }
  return { ...config, limits: limitsOf(config.ledger.limits), browser: webConfig(config.web, config.engine.proxy) };
}

const warn = (line: string) => void process.stderr.write(`decide: ${line}\n`);

/**
 * `decide serve`: the service on one port until SIGTERM or SIGINT. In order: every
 * setting (78), the port (69 if taken, before any model work), the ledger, the
 * engine (a local model fetched and loaded, a provider probed), then the service.
 * While the engine loads, the port answers /healthz and 503 for the rest.
 */
export async function serve(flags: ServeFlags) {
  stopWithNpm(warn);
  const config = settings(flags);
  const startEngine = engineStarter(config.engine);

  let server: RunningServer;
  try {
    server = await listen(startingApp(), flags.port, flags.host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new Failure(`port ${flags.port} on ${flags.host} is already in use; choose another with --port`, EXIT.unavailable);
    throw new Failure(`cannot listen on ${flags.host}:${flags.port}: ${(error as Error).message}`, EXIT.unavailable);
  }
  for (const line of exposureWarnings(flags.host, config.web.verify.provider, config.web.pages)) warn(line);
  const looseToken = tokenFileWarning(engineEnv(flags));
  if (looseToken) warn(looseToken);

  let started: Awaited<ReturnType<typeof start>>;
  let prepared: Awaited<ReturnType<typeof prepare>>;
  try {
    started = await start(flags, config, startEngine);
    prepared = await prepare(started, flags, config);
  } catch (error) {
    await server.close();
    throw error;
  }
  const { store, engine, released, debias } = started;
  const { service, scalings, measured, cookieSecret } = prepared;
  server.use(
    createApp({
      service,
      trustProxy: config.http.trustProxy,
      ipv6Prefix: config.http.ipv6Prefix,
      publicUrl: config.web.publicUrl,
      web: config.web.pages ? { store, verifier: config.browser.verifier, cookieSecret } : undefined,
      admin: config.http.adminToken ? { store, token: config.http.adminToken } : undefined,
      metricsToken: config.http.metricsToken,
      warn,
    }),
  );

  process.stdout.write(`decide listening on ${server.url}\n`);
  process.stderr.write(
    `decide: engine ${engine.name} (model ${engine.model}, debias ${debias}, calibration ${describeScalings(scalings)})` +
      `${engine.endpoint ? ` at ${engine.endpoint}` : ''}, ${measured}, database ${ledgerName(flags.db)}` +
      `, browser ${config.web.pages ? `verification ${config.web.verify.provider}` : 'pages off (DECIDE_WEB=off)'}` +
      `, operator API ${config.http.adminToken ? 'on' : 'off'}, metrics ${config.http.metricsToken ? 'behind a token' : 'public'}` +
      `, decision log ${describeDecisionLog(config.ledger.decisionLog)}` +
      (released ? `, released ${counted(released, 'interrupted reservation')}` : '') +
      '\n',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) process.exit(1); // a second signal: the operator wants out now
    stopping = true;
    process.stderr.write(`decide: ${signal}, finishing in-flight requests\n`);
    await server.close();
    await store.close();
    await engine.close?.();
    process.exit(EXIT.ok);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/**
 * The ledger (its lease taken: one server per SQLite file), then the engine, checked;
 * each failure closes what was opened, and removes a SQLite file this start made: a
 * start that fails leaves no ledger behind, which the operator commands would then
 * find and write to while no server uses it.
 */
async function start(flags: ServeFlags, config: ReturnType<typeof settings>, startEngine: () => Promise<Engine>) {
  const made = !isPostgresUrl(flags.db) && !existsSync(flags.db);
  let store: Store;
  try {
    // PostgreSQL: a reservation outlives its decision's deadline (plus the margin) only if its server died.
    store = await openStore(flags.db, config.limits, {
      decisionDeadlineMs: config.engine.timeoutMs,
      expiryMarginMs: config.ledger.expiryMarginMs,
      decisionRetentionDays: config.ledger.decisionLog.retentionDays,
    });
  } catch (error) {
    throw ledgerFailure(flags.db, error);
  }
  let engine: Engine | undefined;
  try {
    let released: number;
    try {
      // SQLite: takes the file's lease, so a second server on the same file stops here.
      released = await store.recoverInterrupted();
    } catch (error) {
      throw ledgerFailure(flags.db, error);
    }
    engine = await startEngine();
    await checkEngine(engine, { strict: flags.checkEngine ?? false, timeoutMs: Math.min(config.engine.timeoutMs, 10_000), warn });
    return { store, engine, released, debias: flags.debias ?? defaultDebias(engine.name) };
  } catch (error) {
    await engine?.close?.().catch(() => undefined);
    await store.close().catch(() => undefined);
    if (made) for (const file of [flags.db, `${flags.db}-wal`, `${flags.db}-shm`]) rmSync(file, { force: true });
    throw error;
  }
}

/** The service on the ledger and engine: the cookie secret, the scalings `decide calibrate` fitted, whether the model was measured, the metrics. */
async function prepare(started: { store: Store; engine: Engine; debias: Debias }, flags: ServeFlags, config: ReturnType<typeof settings>) {
  const { store, engine, debias } = started;
  const db = flags.db;
  let cookieSecret: string;
  let scalings: Scalings;
  let measurement: ReturnType<typeof describeMeasurement>;
  try {
    // The pass cookie's secret: the operator's, or one kept in the database for every server on it.
    cookieSecret = await resolveCookieSecret(config.browser, store, new Date());
    // Fitted for this engine, model (its content, for a local file) and debiasing.
    const model = calibrationModel(engineEnv(flags), engine);
    const calibrations = await store.calibrations.list({ engine: engine.name, model, debias });
    scalings = scalingsOf(calibrations);
    // Whether this model was measured, read once: the start line and GET /v1/models say it until the next start.
    measurement = describeMeasurement(await store.evaluations.find({ engine: engine.name, model, debias }), calibrations);
  } catch (error) {
    await store.close().catch(() => undefined);
    await engine.close?.();
    throw ledgerFailure(db, error);
  }
  const service = new DecisionService({
    store,
    engine,
    limits: config.limits,
    engineTimeoutMs: config.engine.timeoutMs,
    debias,
    scalings,
    warn,
    telemetry: new Telemetry({ processMetrics: true }),
    decisionLog: config.ledger.decisionLog.level,
    measurement: measurement.sentence,
  });
  return { service, scalings, measured: measurement.line, cookieSecret };
}

/** The decision log as the start-up line names it. */
function describeDecisionLog({ level, retentionDays }: { level: string; retentionDays: number }): string {
  return level === 'off' ? 'off' : `${level}, kept ${counted(retentionDays, 'day')}`;
}
