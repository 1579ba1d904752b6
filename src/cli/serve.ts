import { Command, Option } from 'commander';
import { engineTimeoutFromEnv } from '../engine/from-env.js';
import type { Engine } from '../engine/engine.js';
import { createApp } from '../http/app.js';
import { listen, type RunningServer } from '../http/server.js';
import { describeLocation, expiryMarginFromEnv, openStore } from '../ledger/open.js';
import type { Store } from '../ledger/store.js';
import { limitsFromEnv } from '../service/limits.js';
import { DecisionService } from '../service/service.js';
import { resolveCookieSecret, webConfigFromEnv, type WebConfig } from '../web/config.js';
import { engineEnv, startEngine } from './engine-startup.js';
import { EXIT, fail, type Failure } from './exit-codes.js';
import { ledgerFailure } from './ledger-access.js';
import { dbOption, debiasOption, integer, modelOption, threadsOption } from './options.js';
import { type Debias, defaultDebias } from '../decision/debias.js';
import { describeTemperatures, type Temperatures, temperaturesOf } from '../decision/temperature.js';

interface ServeFlags {
  port: number;
  host: string;
  db: string;
  model?: string;
  threads?: number;
  debias?: Debias;
}

export function serveCommand() {
  return new Command('serve')
    .description('Start the HTTP API, the MCP tool server (/mcp) and the browser pages on one machine')
    .addOption(new Option('--port <n>', 'port to listen on (0 = any free port)').env('DECIDE_PORT').default(8787).argParser(integer(0, 65535)))
    .addOption(new Option('--host <addr>', 'address to bind').env('DECIDE_HOST').default('127.0.0.1'))
    .addOption(dbOption())
    .addOption(modelOption())
    .addOption(threadsOption())
    .addOption(debiasOption())
    .addHelpText(
      'after',
      `
Engine: DECIDE_ENGINE=local (the default: --model, else a small model fetched once
into your cache), openai, systemone or anthropic; see the README's Configuration.`,
    )
    .action(serve);
}

function failOn(failure: Failure): never {
  fail(failure.message, failure.exitCode);
}

async function serve(flags: ServeFlags) {
  let limits;
  let engineTimeoutMs;
  let expiryMarginMs;
  let web: WebConfig;
  try {
    limits = limitsFromEnv();
    engineTimeoutMs = engineTimeoutFromEnv();
    expiryMarginMs = expiryMarginFromEnv();
    web = webConfigFromEnv();
  } catch (error) {
    fail((error as Error).message, EXIT.config);
  }
  const engine: Engine = await startEngine(engineEnv(flags));
  const debias = flags.debias ?? defaultDebias(engine.name);

  let store: Store;
  try {
    // PostgreSQL: a reservation outlives its decision's deadline (plus the margin) only if its server died.
    store = await openStore(flags.db, limits, { decisionDeadlineMs: engineTimeoutMs, expiryMarginMs });
  } catch (error) {
    failOn(ledgerFailure(flags.db, error));
  }
  let released: number;
  let cookieSecret: string;
  try {
    // SQLite: takes the file's lease, so a second server on the same file stops here.
    released = await store.recoverInterrupted();
    // The pass cookie's secret: the operator's, or one kept in the database for every server on it.
    cookieSecret = await resolveCookieSecret(web, store);
  } catch (error) {
    await store.close().catch(() => undefined);
    failOn(ledgerFailure(flags.db, error));
  }

  // Temperatures `decide calibrate` fitted for this engine and model.
  let temperatures: Temperatures;
  try {
    temperatures = temperaturesOf(await store.calibrations.list({ engine: engine.name, model: engine.model }));
  } catch (error) {
    await store.close();
    failOn(ledgerFailure(flags.db, error));
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
    trustProxy: process.env.DECIDE_TRUST_PROXY === '1',
    web: { store, verifier: web.verifier, cookieSecret, publicUrl: web.publicUrl },
  });
  let server: RunningServer;
  try {
    server = await listen(app, flags.port, flags.host);
  } catch (error) {
    await store.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') fail(`port ${flags.port} on ${flags.host} is already in use; choose another with --port`, EXIT.unavailable);
    fail(`cannot listen on ${flags.host}:${flags.port}: ${(error as Error).message}`, EXIT.unavailable);
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
