import type { TrustProxy } from '../../src/config/trust-proxy.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Scalings } from '../../src/decision/scaling.js';
import { createOpenAIEngine } from '../../src/engine/openai.js';
import { createSystemOneEngine } from '../../src/engine/systemone.js';
import { createLocalEngine } from '../../src/engine/local/local.js';
import type { Engine } from '../../src/engine/engine.js';
import { createApp } from '../../src/server/app.js';
import { listen } from '../../src/server/listen.js';
import { openSqliteStore, type SqliteStoreOptions } from '../../src/ledger/sqlite/store.js';
import { openPostgresStore } from '../../src/ledger/postgres/store.js';
import type { Limits, Store } from '../../src/ledger/store.js';
import type { Clock } from '../../src/service/clock.js';
import { DecisionService } from '../../src/service/service.js';
import type { WebOptions } from '../../src/web/routes.js';
import { noVerification } from '../../src/web/verify/verifier.js';
import { startOpenAIFake } from '../fakes/openai-fake.js';
import { startSystemOneFake } from '../fakes/systemone-fake.js';
import { call, type CallOptions } from './api.js';
import { TINY_MODEL } from './tiny-model.js';
import { scaled } from './time.js';
import type { Debias } from '../../src/contract/debias.js';
import type { DecisionLogLevel } from '../../src/contract/decision-log.js';

/** The tiny model, generated before the tests start (tiny-model.ts). */
export { TINY_MODEL, TINY_MODEL_NAME } from './tiny-model.js';

/** The engine's provider key: it must never show up in the database or the logs. */
export const ENGINE_SECRET = 'sk-engine-5ecret-0f-the-provider-7788';

export interface StartOptions {
  clock?: Clock;
  limits?: Partial<Limits>;
  /** The decision deadline: a scaled 5 s unless a test wants it to fire. */
  engineTimeoutMs?: number;
  maxInFlight?: number;
  /** Decisions the engine declares it works on at once, so the service queues in front of it (service/admission.ts). */
  capacity?: number;
  /** The openai engine's connection pool (64 by default). */
  connections?: number;
  /** The browser's side: verification `none` and a fresh cookie secret unless given. */
  web?: Partial<Omit<WebOptions, 'store'>>;
  trustProxy?: boolean | TrustProxy;
  ipv6Prefix?: number;
  /** DECIDE_PUBLIC_URL. */
  publicUrl?: string;
  /** The SQLite store's timing: expiry, sweep, how long a call waits for a lock. */
  ledger?: SqliteStoreOptions;
  /** Order debiasing and fitted scalings, as `decide serve` would apply them. */
  debias?: Debias;
  scalings?: Scalings;
  /** DECIDE_ADMIN_TOKEN: turns the operator API on with this token. */
  adminToken?: string;
  /** DECIDE_METRICS_TOKEN. */
  metricsToken?: string;
  /** DECIDE_DECISION_LOG (its retention is `ledger.decisionRetentionDays`). */
  decisionLog?: DecisionLogLevel;
  /** Where the service tells the operator what they should know; stderr unless given. */
  warn?: (line: string) => void;
}

/** The ledger the service runs on: a SQLite file at `dbPath` unless a test opens another. */
type OpenLedger<S extends Store> = (limits: Limits, dbPath: string) => S | Promise<S>;

const sqliteLedger =
  (options: StartOptions): OpenLedger<ReturnType<typeof openSqliteStore>> =>
  (limits, dbPath) =>
    openSqliteStore(dbPath, limits, options.ledger);

/**
 * The whole service, in process: a real HTTP server on an ephemeral port, a real
 * SQLite file in a temp folder (or the ledger `open` makes), and an engine talking to
 * a loopback fake provider.
 */
async function start<F extends { close(): Promise<void> }, S extends Store>(
  fake: F,
  engine: Engine,
  options: StartOptions,
  open: OpenLedger<S>,
) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-http-'));
  const dbPath = path.join(dir, 'ledger.db');
  const limits: Limits = { freePerKey: 20, freePerIp: 0, freePerSite: 0, ...options.limits };
  const store = await open(limits, dbPath);
  const service = new DecisionService({
    store,
    engine: options.capacity === undefined ? engine : withCapacity(engine, options.capacity),
    limits,
    engineTimeoutMs: options.engineTimeoutMs ?? scaled(5_000),
    clock: options.clock,
    maxInFlight: options.maxInFlight,
    debias: options.debias,
    scalings: options.scalings,
    decisionLog: options.decisionLog,
    warn: options.warn,
  });
  const logs: string[] = [];
  const web: WebOptions = { store, verifier: noVerification, cookieSecret: randomBytes(32).toString('base64url'), ...options.web };
  const app = createApp({
    service,
    log: (line) => logs.push(line),
    web,
    trustProxy: options.trustProxy,
    ipv6Prefix: options.ipv6Prefix,
    publicUrl: options.publicUrl,
    admin: options.adminToken ? { store, token: options.adminToken } : undefined,
    metricsToken: options.metricsToken,
    warn: (line) => logs.push(line),
  });
  const server = await listen(app, 0, '127.0.0.1');
  return {
    url: server.url,
    fake,
    store,
    service,
    web,
    dir,
    dbPath,
    logs,
    call: (method: string, route: string, opts?: CallOptions) => call(server.url, method, route, opts),
    /** A key on a new pass holding `credits` (never funded when 0). */
    async newKey(credits = 0) {
      const created = await store.keys.create(new Date());
      if (credits > 0) await store.passes.fund(created.passId, credits, new Date(), 'test');
      return created;
    },
    async close() {
      await server.close();
      await store.close();
      await engine.close?.();
      await fake.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The service on an engine of the test's own making: one with a bug in it, which no provider fake can give. */
export async function startWithEngine(engine: Engine, options: StartOptions = {}) {
  return start({ close: async () => {} }, engine, options, sqliteLedger(options));
}

/** `engine` declaring `capacity`, as the local engine does. */
function withCapacity(engine: Engine, capacity: number): Engine {
  return {
    name: engine.name,
    model: engine.model,
    capacity,
    ask: (state, questions, signal, call) => engine.ask(state, questions, signal, call),
    close: engine.close,
  };
}

export async function startWithOpenAI(options: StartOptions = {}) {
  const fake = await startOpenAIFake();
  const engine = createOpenAIEngine({
    baseUrl: fake.url,
    apiKey: ENGINE_SECRET,
    model: 'fake-logprobs-1',
    maxConnections: options.connections,
  });
  return start(fake, engine, options, sqliteLedger(options));
}

/**
 * As startWithOpenAI, on the PostgreSQL ledger at `url` (a schema of the test's own:
 * test/ledger/postgres-helpers.ts), without the periodic sweep. The test drops it.
 */
export async function startWithOpenAIOnPostgres(url: string, options: StartOptions = {}) {
  const fake = await startOpenAIFake();
  const engine = createOpenAIEngine({ baseUrl: fake.url, apiKey: ENGINE_SECRET, model: 'fake-logprobs-1' });
  return start(fake, engine, options, (limits) => openPostgresStore(url, limits, { sweepIntervalMs: 0 }));
}

export async function startWithSystemOne(options: StartOptions = {}) {
  const fake = await startSystemOneFake();
  const engine = createSystemOneEngine({ baseUrl: fake.url, apiKey: ENGINE_SECRET, model: 'fake-systemone-1' });
  return start(fake, engine, options, sqliteLedger(options));
}

/** The local engine on the tiny random-weights model: real plumbing, random answers. */
export async function startWithLocal(options: StartOptions = {}) {
  const engine = await createLocalEngine({ modelPath: TINY_MODEL });
  return start({ close: async () => {} }, engine, options, sqliteLedger(options));
}

export type Running = Awaited<ReturnType<typeof startWithOpenAI>>;

/** A clock the test moves by hand. */
export function manualClock(iso: string) {
  let now = new Date(iso).getTime();
  const clock: Clock = () => new Date(now);
  return { clock, set: (next: string) => void (now = new Date(next).getTime()), advance: (ms: number) => void (now += ms) };
}
