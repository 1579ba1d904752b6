import { envRaw } from '../config/variables.js';
import { engineTimeoutFromEnv } from '../engine/from-env.js';
import type { Engine } from '../engine/engine.js';
import { ipv6PrefixFromEnv } from '../config/parse.js';
import { parseTrustProxy, type TrustProxy } from '../http/client-ip.js';
import { createApp } from '../server/app.js';
import { listen, type RunningServer } from '../server/listen.js';
import { describeLocation, expiryMarginFromEnv, openStore } from '../ledger/open.js';
import type { Store } from '../ledger/store.js';
import { limitsFromEnv } from '../service/limits.js';
import { DecisionService } from '../service/service.js';
import { resolveCookieSecret, webConfigFromEnv, type WebConfig } from '../web/config.js';
import { calibrationModel } from './engine-identity.js';
import { engineEnv, startEngine } from './engine-startup.js';
import { EXIT, Failure } from './exit-codes.js';
import { ledgerFailure } from './ledger-access.js';
import { type Debias, defaultDebias } from '../decision/debias.js';
import { describeTemperatures, type Temperatures, temperaturesOf } from '../decision/temperature.js';

export interface ServeFlags {
  port: number;
  host: string;
  db: string;
  model?: string;
  threads?: number;
  debias?: Debias;
}

/** `decide serve`: the service on one port until SIGTERM or SIGINT. */
export async function serve(flags: ServeFlags) {
  let limits;
  let engineTimeoutMs;
  let expiryMarginMs;
  let web: WebConfig;
  let trustProxy: TrustProxy;
  let ipv6Prefix: number;
  try {
    trustProxy = parseTrustProxy(envRaw(process.env, 'DECIDE_TRUST_PROXY'));
    ipv6Prefix = ipv6PrefixFromEnv();
    limits = limitsFromEnv();
    engineTimeoutMs = engineTimeoutFromEnv();
    expiryMarginMs = expiryMarginFromEnv();
    web = webConfigFromEnv();
  } catch (error) {
    throw new Failure((error as Error).message, EXIT.config);
  }
  const engine: Engine = await startEngine(engineEnv(flags));
  const debias = flags.debias ?? defaultDebias(engine.name);

  let store: Store;
  try {
    // PostgreSQL: a reservation outlives its decision's deadline (plus the margin) only if its server died.
    store = await openStore(flags.db, limits, { decisionDeadlineMs: engineTimeoutMs, expiryMarginMs });
  } catch (error) {
    throw ledgerFailure(flags.db, error);
  }
  let released: number;
  let cookieSecret: string;
  try {
    // SQLite: takes the file's lease, so a second server on the same file stops here.
    released = await store.recoverInterrupted();
    // The pass cookie's secret: the operator's, or one kept in the database for every server on it.
    cookieSecret = await resolveCookieSecret(web, store, new Date());
  } catch (error) {
    await store.close().catch(() => undefined);
    throw ledgerFailure(flags.db, error);
  }

  // Temperatures `decide calibrate` fitted for this engine, model (its content, for a local file) and debiasing.
  let temperatures: Temperatures;
  try {
    const model = calibrationModel(engineEnv(flags), engine);
    temperatures = temperaturesOf(await store.calibrations.list({ engine: engine.name, model, debias }));
  } catch (error) {
    await store.close();
    throw ledgerFailure(flags.db, error);
  }
  const service = new DecisionService({
    store,
    engine,
    limits,
    engineTimeoutMs,
    debias,
    temperatures,
    warn: (line) => void process.stderr.write(`decide: ${line}\n`),
  });
  const app = createApp({
    service,
    trustProxy,
    ipv6Prefix,
    publicUrl: web.publicUrl,
    web: { store, verifier: web.verifier, cookieSecret },
  });
  let server: RunningServer;
  try {
    server = await listen(app, flags.port, flags.host);
  } catch (error) {
    await store.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Failure(`port ${flags.port} on ${flags.host} is already in use; choose another with --port`, EXIT.unavailable);
    throw new Failure(`cannot listen on ${flags.host}:${flags.port}: ${(error as Error).message}`, EXIT.unavailable);
  }

  process.stdout.write(`decide listening on ${server.url}\n`);
  process.stderr.write(
    `decide: engine ${engine.name} (model ${engine.model}, debias ${debias}, calibration ${describeTemperatures(temperatures)}), database ${describeLocation(flags.db)}` +
      `, browser verification ${web.verifier.provider}` +
      (released ? `, released ${released} interrupted reservation(s)` : '') + '\n',
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
