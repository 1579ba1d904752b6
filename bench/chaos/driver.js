// One chaos run: a ledger with known balances, `decide serve` (one on SQLite, two on one
// PostgreSQL schema), a misbehaving engine, `clients` clients making `decisions`
// decisions, faults injected during the run (engine faults throughout; a server
// kill -9'ed and restarted; PostgreSQL connections dropped with pg_terminate_backend),
// then the books checked against what the clients were answered.
//
// Used by bench/chaos.js (`npm run bench:chaos`) and test/chaos/*.test.ts.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, stop } from '../children.js';
import { requestBodies, runClients } from './clients.js';
import { backendKiller, dropSchema, ledgerReader, readBooks, reservedCount, seedLedger } from './ledger.js';
import { cleanEnv, ServeProcess } from './servers.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..', '..');
const DECIDE = path.join(ROOT, 'bin', 'decide.js');

export const DEFAULTS = {
  decisions: 10_000,
  clients: 200,
  passes: 40,
  keysPerPass: 5,
  /** Of every 10 requests, how many are stress (5 credits). */
  stressPerTen: 1,
  engineTimeoutMs: 1_500,
  expiryMarginMs: 1_000,
  /** Free decisions over the site per day: low enough that some free requests meet it. */
  freePerSite: 3_500,
  /** Per engine call. */
  rates: { '5xx': 0.03, 429: 0.02, garbage: 0.02, hang: 0.004, reset: 0.01 },
  /** When (share of requests issued) a server is kill -9'ed, and for how long it stays down. */
  killAt: [0.4],
  downMs: 300,
  /** When (share of requests issued) every PostgreSQL connection of the servers is dropped. */
  terminateAt: [0.2, 0.55, 0.7, 0.85],
  pgUrl: process.env.DECIDE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
};

/** Credits of pass i: a quarter never funded, the rest from a little to plenty. */
function funding(i) {
  if (i % 4 === 3) return 0;
  return 20 + ((i * 53) % 240);
}

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

function askChild(child, message, type) {
  return new Promise((resolve) => {
    const id = Math.random();
    const onMessage = (m) => {
      if (m?.type === type && m.id === id) {
        child.off('message', onMessage);
        resolve(m);
      }
    };
    child.on('message', onMessage);
    child.send({ ...message, id });
  });
}

/**
 * @param {object} options  DEFAULTS overridden, plus `db: 'sqlite' | 'postgres'`, `log`
 * @returns {Promise<object>} the run's figures, checks and losses
 */
export async function runChaos(options) {
  const o = { ...DEFAULTS, ...options };
  const log = o.log ?? (() => {});
  if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const postgres = o.db === 'postgres';
  const serverCount = postgres ? 2 : 1;
  const runId = randomBytes(5).toString('hex');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'decide-chaos-'));
  let location;
  if (postgres) {
    const url = new URL(o.pgUrl);
    url.searchParams.set('schema', `decide_chaos_${runId}`);
    // Names the servers' connections, so pg_terminate_backend drops theirs and no one else's.
    url.searchParams.set('application_name', `decide_chaos_${runId}`);
    location = url.toString();
  } else {
    location = path.join(tmp, 'ledger.db');
  }

  const cleanups = [];
  const servers = [];
  let engine;
  const started = performance.now();
  try {
    // ---- the ledger, with known balances ---------------------------------------------
    const seeded = await seedLedger({
      root: ROOT,
      decide: DECIDE,
      location,
      env: cleanEnv(),
      passes: o.passes,
      keysPerPass: o.keysPerPass,
      funding,
    });
    if (postgres) cleanups.push(() => (o.keep ? undefined : dropSchema(location)));
    log(`seeded ${seeded.keys.length} keys on ${seeded.passes.length} passes in ${Math.round(performance.now() - started)} ms`);

    // ---- the engine and the servers ----------------------------------------------------
    engine = await startServer('chaos engine', process.execPath, [path.join(HERE, 'engine.js')], { ipc: true, cwd: ROOT });
    const serveEnv = {
      DECIDE_ENGINE: 'systemone',
      DECIDE_SYSTEMONE_URL: engine.url,
      DECIDE_MODEL: 'chaos-engine',
      DECIDE_ENGINE_TIMEOUT_MS: String(o.engineTimeoutMs),
      DECIDE_EXPIRY_MARGIN_MS: String(o.expiryMarginMs),
      DECIDE_FREE_PER_IP: '0',
      DECIDE_FREE_PER_SITE: String(o.freePerSite),
    };
    for (let i = 0; i < serverCount; i++) {
      servers.push(new ServeProcess({ name: `server ${i}`, decide: DECIDE, root: ROOT, location, env: serveEnv }));
    }
    await Promise.all(servers.map((s) => s.start()));
    log(`servers up: ${servers.map((s) => s.url).join(', ')}`);

    // ---- the faults --------------------------------------------------------------------
    await askChild(engine.child, { type: 'faults', rates: o.rates }, 'faults');
    const killer = postgres ? await backendKiller(location) : null;
    if (killer) cleanups.push(() => killer.close());
    const faults = { kills: 0, terminations: 0, backendsDropped: 0, errors: [] };
    const pending = [];
    const plan = [
      ...o.killAt.map((at, i) => ({ at, kind: 'kill', server: i % serverCount })),
      ...(postgres ? o.terminateAt.map((at) => ({ at, kind: 'terminate' })) : []),
    ].sort((a, b) => a.at - b.at);
    const fire = (step) => {
      if (step.kind === 'kill') {
        log(`kill -9 ${servers[step.server].name}`);
        return servers[step.server].killAndRestart(o.downMs).then(() => {
          faults.kills++;
          log(`${servers[step.server].name} restarted`);
        });
      }
      return killer.terminate().then((n) => {
        faults.terminations++;
        faults.backendsDropped += n;
        log(`pg_terminate_backend: ${n} connections dropped`);
      });
    };
    const onIssued = (issued, total) => {
      while (plan.length > 0 && issued >= plan[0].at * total) {
        const step = plan.shift();
        pending.push(fire(step).catch((error) => faults.errors.push(`${step.kind}: ${error.message}`)));
      }
    };

    // ---- the load ------------------------------------------------------------------------
    const { DecideClient, DecideError } = await import(new URL('../../dist/client/index.js', import.meta.url).href);
    const { standard, stress } = requestBodies();
    const bodies = [];
    for (let i = 0; i < 10; i++) bodies.push(...(i < o.stressPerTen ? stress : standard));
    const day = new Date().toISOString().slice(0, 10);
    const load = await runClients({
      DecideClient,
      DecideError,
      servers,
      keys: seeded.keys,
      bodies,
      decisions: o.decisions,
      clients: o.clients,
      onIssued,
    });
    await Promise.all(pending);
    log(`load done: ${load.outcomes.length} requests in ${Math.round(load.loadMs)} ms`);
    await askChild(engine.child, { type: 'faults', rates: {} }, 'faults');
    const engineStats = await askChild(engine.child, { type: 'stats' }, 'stats');
    if (new Date().toISOString().slice(0, 10) !== day)
      throw new Error('the run crossed UTC midnight: the free allowance reset mid-run; run it again');

    // ---- afterwards: every reservation settles (PostgreSQL: the killed server's expire) ----
    const reader = ledgerReader(location);
    cleanups.push(() => reader.close());
    const settleBy = performance.now() + o.engineTimeoutMs + o.expiryMarginMs + 5_000 + 10_000;
    let reserved = await reservedCount(reader);
    while (reserved > 0 && performance.now() < settleBy) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      reserved = await reservedCount(reader);
    }
    const settledAtMs = performance.now() - started;

    const result = await check({ o, seeded, load, servers, reader, day });
    result.figures = {
      db: postgres ? 'PostgreSQL' : 'SQLite',
      servers: serverCount,
      decisions: o.decisions,
      clients: o.clients,
      keys: seeded.keys.length,
      passes: seeded.passes.length,
      loadMs: load.loadMs,
      totalMs: 0,
      engine: engineStats,
      faults,
      releasedAtStart: servers.reduce((n, s) => n + s.releasedAtStart, 0),
      crashes: servers.flatMap((s) => s.crashes),
      settledAtMs,
      ...result.figures,
    };

    // ---- a graceful stop: every server finishes and exits 0 ------------------------------------
    const stops = await Promise.all(servers.map((s) => s.stop()));
    const badStops = stops.filter((s) => s.code !== 0);
    result.checks.push({ name: 'servers stop gracefully (exit 0)', ok: badStops.length === 0, detail: JSON.stringify(stops) });
    result.checks.push({
      name: 'no server exited unasked',
      ok: result.figures.crashes.length === 0,
      detail: result.figures.crashes.map((c) => `code ${c.code} signal ${c.signal}: ${c.stderr.slice(-600)}`).join('\n'),
    });
    result.checks.push({ name: 'fault injection worked', ok: faults.errors.length === 0, detail: faults.errors.join('; ') });
    result.figures.totalMs = performance.now() - started;
    result.ok = result.checks.every((c) => c.ok) && result.losses === 0;
    return result;
  } finally {
    await Promise.all(servers.map((s) => s.kill9()));
    if (engine) await stop(engine.child, 1_000);
    for (const clean of cleanups.reverse()) await Promise.resolve(clean()).catch(() => {});
    if (!o.keep) rmSync(tmp, { recursive: true, force: true });
  }
}

/** What the answers imply, what the ledger and the API say, and every difference between them. */
async function check({ o, seeded, load, servers, reader, day }) {
  const checks = [];
  const { outcomes, connectionErrors } = load;
  const books = await readBooks(reader);

  // Decisions served without a charge (their reservation expired first): each server says so on stderr.
  const freeServes = servers.flatMap((s) => s.freeServes);
  const uncharged = new Map(); // charge id → charge
  for (const line of freeServes) {
    const id = /\b(chg_[0-9A-Za-z]+)/.exec(line)?.[1];
    const charge = id && books.charges.get(id);
    if (charge) uncharged.set(id, charge);
  }

  // ---- what the answers imply --------------------------------------------------------
  const freeUsed = new Map(); // key sha → free units charged
  const spent = new Map(); // pass → credits charged
  const statuses = {};
  let served = 0;
  let replayed = 0;
  let answeredBadly = 0;
  for (const out of outcomes) {
    const label = out.status === 200 ? '200' : `${out.status} ${out.code}`;
    statuses[label] = (statuses[label] ?? 0) + 1;
    if (out.status !== 200) continue;
    served++;
    if (out.replayed) replayed++;
    const key = seeded.keys[out.keyIndex];
    const print = sha256(key.key);
    if (out.depth === 'stress' && !out.stress) answeredBadly++;
    if (out.access.type === 'free') {
      if (out.depth === 'stress') answeredBadly++; // stress never uses the free allowance
      freeUsed.set(print, (freeUsed.get(print) ?? 0) + 1);
    } else {
      const cost = out.depth === 'stress' ? 5 : 1;
      spent.set(key.passId, (spent.get(key.passId) ?? 0) + cost);
    }
  }
  // …less what the servers report as served without a charge.
  for (const charge of uncharged.values()) {
    if (charge.kind === 'free') freeUsed.set(charge.key, (freeUsed.get(charge.key) ?? 0) - 1);
    else spent.set(charge.passId, (spent.get(charge.passId) ?? 0) - charge.cost);
  }

  // ---- every request got an answer or a clean error ----------------------------------------
  const unanswered = outcomes.filter((out) => out.status <= 0);
  checks.push({
    name: 'every request answered (a decision or a contract error)',
    ok: unanswered.length === 0 && outcomes.length === o.decisions,
    detail: unanswered
      .slice(0, 5)
      .map((u) => `${u.code}: ${u.message}`)
      .join('\n'),
  });
  checks.push({ name: 'answers are what was asked (stress checks, charges)', ok: answeredBadly === 0, detail: `${answeredBadly} bad` });
  // A request met no server only while that server was down on purpose (or had crashed).
  let inFlightOnKilled = 0;
  let onCrashed = 0;
  const unexplained = [];
  for (const e of connectionErrors) {
    const server = servers[e.server];
    if (server.wasDown(e.from - 50, e.to + 50, 'killed')) inFlightOnKilled++;
    else if (server.wasDown(e.from - 50, e.to + 50, 'crashed')) onCrashed++;
    else unexplained.push(e);
  }
  checks.push({
    name: 'connection errors only where a server was killed',
    ok: unexplained.length === 0,
    detail: unexplained
      .slice(0, 5)
      .map((e) => `${servers[e.server].name}: ${e.code} ${e.message}`)
      .join('\n'),
  });

  // ---- the books against the answers ----------------------------------------------------------
  let overcharged = 0;
  let undercharged = 0;
  const mismatches = [];
  const compare = (what, ledger, implied) => {
    if (ledger === implied) return;
    if (ledger > implied) overcharged += ledger - implied;
    else undercharged += implied - ledger;
    mismatches.push(`${what}: ledger ${ledger}, answers imply ${implied}`);
  };
  for (const key of seeded.keys) {
    const print = sha256(key.key);
    compare(`free use of key ${key.keyHint}`, books.freeByKey.get(`${print}/${day}`) ?? 0, freeUsed.get(print) ?? 0);
  }
  for (const pass of seeded.passes) {
    const row = books.passes.get(pass.passId);
    compare(`credits of ${pass.passId}`, pass.funded - (row?.credits ?? 0), spent.get(pass.passId) ?? 0);
    if (row?.funded !== pass.funded) mismatches.push(`fundings of ${pass.passId}: ${row?.funded}, expected ${pass.funded}`);
  }
  const freeServed = [...freeUsed.values()].reduce((a, b) => a + b, 0);
  compare('free decisions over the site', books.siteUsed.get(day) ?? 0, freeServed);

  // The API says the same as the database, on every server.
  const apiProblems = [];
  const { DecideClient } = await import(new URL('../../dist/client/index.js', import.meta.url).href);
  for (const server of servers) {
    const anon = new DecideClient({ url: server.url });
    const metrics = await anon.metrics();
    if (metrics.day !== day) apiProblems.push(`${server.name}: metrics day ${metrics.day}, not ${day}`);
    // One sample per decision answered: a replayed answer is the sample of the run that settled it.
    if (metrics.api.samples !== served)
      apiProblems.push(`${server.name}: /v1/metrics api.samples ${metrics.api.samples}, answers ${served}`);
    if (metrics.web.samples !== 0) apiProblems.push(`${server.name}: /v1/metrics web.samples ${metrics.web.samples}, expected 0`);
  }
  const usageServer = servers[servers.length - 1];
  const usages = await Promise.all(
    seeded.keys.map((key) => new DecideClient({ url: usageServer.url, apiKey: key.key }).usage().then((u) => ({ key, u }))),
  );
  for (const { key, u } of usages) {
    const print = sha256(key.key);
    if (u.freeUsed !== (freeUsed.get(print) ?? 0))
      apiProblems.push(`/v1/usage of ${key.keyHint}: freeUsed ${u.freeUsed}, answers imply ${freeUsed.get(print) ?? 0}`);
    const pass = seeded.passes.find((p) => p.passId === key.passId);
    const credits = pass.funded - (spent.get(key.passId) ?? 0);
    if (u.passCredits !== credits) apiProblems.push(`/v1/usage of ${key.keyHint}: passCredits ${u.passCredits}, answers imply ${credits}`);
  }

  checks.push({
    name: 'every reservation settled (none left reserved)',
    ok: (books.states.reserved ?? 0) === 0,
    detail: JSON.stringify(books.states),
  });
  checks.push({ name: 'no idempotency record left running', ok: books.running === 0, detail: `${books.running} running` });
  checks.push({
    name: 'ledger audit (funded − charged = balance; counters = charges)',
    ok: books.problems.length === 0,
    detail: books.problems.slice(0, 5).join('\n'),
  });
  checks.push({
    name: 'ledger = what the answers imply (per key, per pass, site)',
    ok: mismatches.length === 0,
    detail: mismatches.slice(0, 8).join('\n'),
  });
  checks.push({
    name: '/v1/usage and /v1/metrics = what the answers imply',
    ok: apiProblems.length === 0,
    detail: apiProblems.slice(0, 8).join('\n'),
  });
  const committed = books.states.committed ?? 0;
  checks.push({
    name: 'committed charges = answers served (less those served free)',
    ok: committed === served - uncharged.size,
    detail: `${committed} committed, ${served} served, ${uncharged.size} served without a charge`,
  });

  const metricsMismatch = apiProblems.filter((p) => p.includes('/v1/metrics')).length;
  const losses = overcharged + undercharged + unanswered.length + metricsMismatch;
  return {
    checks,
    losses,
    figures: {
      statuses,
      served,
      replayed,
      uncharged: uncharged.size,
      freeServed,
      creditsSpent: [...spent.values()].reduce((a, b) => a + b, 0),
      overcharged,
      undercharged,
      unanswered: unanswered.length,
      connectionErrors: connectionErrors.length,
      inFlightOnKilled,
      onCrashed,
      internalErrors: servers.reduce((n, s) => n + s.errorLines.length, 0),
      errorSamples: servers.flatMap((s) => s.errorLines).slice(0, 3),
      balancesChecked: seeded.keys.length * 3 + seeded.passes.length * 2 + servers.length * 2 + 1,
      states: books.states,
      p99Ms: percentile(
        outcomes.map((x) => x.ms ?? 0),
        0.99,
      ),
    },
  };
}

function percentile(values, q) {
  const sorted = Float64Array.from(values).sort();
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN;
}
