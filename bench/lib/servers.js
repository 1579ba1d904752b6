// The processes a row runs against: the bench engine, the bare echo, the floor, and
// `decide serve` on a ledger of its own. Each row starts what it needs and stops it.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { freePort, startServer, stop } from '../children.js';
import { BENCH, ROOT } from './config.js';

const DECIDE = path.join(ROOT, 'bin', 'decide.js');
const dist = (file) => import(new URL(`../../dist/${file}`, import.meta.url).href);

/** Free limits off (no per-IP or site cap): every bench decision is served. */
export const SERVICE_ENV = { DECIDE_FREE_PER_IP: '0', DECIDE_FREE_PER_SITE: '0' };
export const LIMITS = { freePerKey: 20, freePerIp: 0, freePerSite: 0 };

/** Opens the ledger at `db` (SQLite file or postgres:// URL) through dist/, the way `decide serve` does. */
export async function openLedger(db, limits = LIMITS) {
  const { openStore } = await dist('ledger/open.js');
  return openStore(db, limits, { sweepIntervalMs: 0 });
}

/** `keys` keys, each on its own pass funded with `credits`. */
export async function makeKeys(db, { keys = 1, credits = 10_000_000 } = {}) {
  const store = await openLedger(db);
  try {
    const made = [];
    for (let i = 0; i < keys; i++) {
      const key = await store.keys.create(new Date());
      await store.passes.fund(key.passId, credits, new Date(), 'bench');
      made.push(key);
    }
    return made;
  } finally {
    await store.close();
  }
}

export async function startEngine({ delayMs = 0 } = {}) {
  const srv = await startServer('engine', process.execPath, [path.join(BENCH, 'engine-server.js')], {
    ipc: true,
    cwd: ROOT,
    env: { BENCH_ENGINE_DELAY_MS: String(delayMs) },
  });
  return { ...srv, pid: srv.child.pid, stats: () => engineStats(srv.child), stop: () => stop(srv.child, 3_000) };
}

/** The engine's answered calls so far and the last request body it was sent. */
export function engineStats(child) {
  return new Promise((resolve) => {
    const id = Math.random();
    const onMessage = (m) => {
      if (m?.type === 'calls' && m.id === id) {
        child.off('message', onMessage);
        resolve({ calls: m.calls, last: m.last });
      }
    };
    child.on('message', onMessage);
    child.send({ type: 'calls', id });
  });
}

export async function startEcho() {
  const srv = await startServer('echo', process.execPath, [path.join(BENCH, 'echo-server.js')], { ipc: true, cwd: ROOT });
  return { ...srv, pid: srv.child.pid, stop: () => stop(srv.child, 3_000) };
}

export async function startFloor({ engineUrl, engineBody }) {
  const srv = await startServer('floor', process.execPath, [path.join(BENCH, 'floor-server.js')], {
    ipc: true,
    cwd: ROOT,
    env: { BENCH_ENGINE_URL: engineUrl, BENCH_ENGINE_BODY: engineBody },
  });
  return { ...srv, pid: srv.child.pid, stop: () => stop(srv.child, 3_000) };
}

/**
 * `decide serve` on `db` with the bench engine at `engineUrl`. Its access log goes down
 * a pipe this process drains (what a log collector sees), or to /dev/null. `bin`: another
 * build's `bin/decide.js` (bench/http-ab.js).
 */
export async function startDecide(config, { db, engineUrl, name = 'decide', env = {}, command = [], timeoutMs, bin = DECIDE }) {
  const profDir = path.join(BENCH, 'profiles');
  if (config.cpuProf) mkdirSync(profDir, { recursive: true });
  const toNull = config.decideStdout === 'null';
  const port = toNull ? await freePort() : 0;
  const [program, ...prefix] = [...command, process.execPath];
  const srv = await startServer(
    `decide serve (${name})`,
    program,
    [
      ...prefix,
      ...(config.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`] : []),
      bin,
      'serve',
      '--port',
      String(port),
      '--db',
      db,
    ],
    {
      cwd: ROOT,
      timeoutMs,
      stdoutToNull: toNull ? { url: `http://127.0.0.1:${port}`, readyOn: /^decide: engine /m } : undefined,
      env: { ...SERVICE_ENV, DECIDE_ENGINE: 'systemone', DECIDE_SYSTEMONE_URL: engineUrl, DECIDE_MODEL: 'bench', ...env },
    },
  );
  // A graceful stop, so a --cpu-prof profile gets written.
  return { ...srv, pid: srv.child.pid, stop: () => stop(srv.child, 10_000) };
}

/**
 * `decide serve` on the local engine with the GGUF file `modelPath`, `threads`
 * llama.cpp threads (DECIDE_THREADS), and a decision deadline long enough for a
 * realistic model on two cores with eight decisions queued. `command` runs it under
 * another program, e.g. ['taskset', '-c', '0'].
 */
export function startLocalDecide(config, { db, modelPath, threads, name, command }) {
  return startDecide(config, {
    db,
    name,
    command,
    timeoutMs: 120_000, // loading a model of a gigabyte on a busy machine
    env: { DECIDE_ENGINE: 'local', DECIDE_MODEL: modelPath, DECIDE_THREADS: String(threads), DECIDE_ENGINE_TIMEOUT_MS: '600000' },
  });
}

/** One request, read whole: for the sanity checks before any load. */
export async function post(url, headers, body) {
  const res = await request(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.body.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, text, json };
}

export function expect(condition, message) {
  if (!condition) throw new Error(`sanity check failed: ${message}`);
}

/** Stops every server given, whatever happens to the others. */
export async function stopAll(...servers) {
  await Promise.allSettled(servers.filter(Boolean).map((s) => s.stop()));
}
