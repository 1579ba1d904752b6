// A closed loop for slow targets: the local engine at realistic size takes seconds per
// decision, so the fixed windows of lib/load.js (autocannon, 2 s slices, a 30 s
// timeout) would hold few answers or none. Here each of `concurrency` workers sends
// the next request as soon as the last is answered, until `count` requests have been
// sent or `maxMs` has passed; requests in flight are always waited for, and there is
// no client timeout (decide's decision deadline is the one that applies).
//
// `alternate` measures several targets in turns (A, B, A, B, …), like `sideBySide`,
// so drift of the shared machine falls on all of them alike.
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { cpuSnapshot, percentiles } from './load.js';

/** One run against one target: answered latencies (ms), statuses, wall time and CPU of `pids`. */
export async function closedLoop({ url, headers, body, concurrency, count, maxMs = Infinity, pids = {} }) {
  const latencies = [];
  const statuses = {};
  let sent = 0;
  let sample = null;
  const worker = async () => {
    while (sent < count && performance.now() - t0 < maxMs) {
      const n = sent++;
      const t = performance.now();
      let status;
      try {
        const res = await request(url, {
          method: 'POST',
          headers,
          body: typeof body === 'function' ? body(n) : body,
          headersTimeout: 0,
          bodyTimeout: 0,
        });
        status = res.statusCode;
        const text = await res.body.text();
        if (status >= 200 && status < 300) latencies.push(performance.now() - t);
        else sample ??= `${status} ${text.slice(0, 300)}`;
      } catch (error) {
        status = error.code ?? 'error';
        sample ??= String(error.message).slice(0, 300);
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  const before = cpuSnapshot(pids);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, statuses, sample, windowMs: performance.now() - t0, before, after: cpuSnapshot(pids) };
}

/**
 * `targets` ({ name, url, headers, body }) in `rounds` alternating turns, `count`
 * requests each in all; per target: answers/s over its turns, latency percentiles,
 * CPU ms per answer of each of `pids`, and the cores of the machine others kept busy.
 */
export async function alternate(targets, { rounds, concurrency, count, maxMs, pids, onTurn }) {
  const acc = targets.map(() => ({ latencies: [], statuses: {}, windowMs: 0, cpu: {}, busy: 0, ours: 0, sample: null }));
  for (let round = 0; round < rounds; round++) {
    for (const [i, target] of targets.entries()) {
      const share = Math.max(concurrency, Math.ceil(count / rounds)); // every worker has a request in each turn
      const r = await closedLoop({ ...target, concurrency, count: share, maxMs, pids });
      const a = acc[i];
      a.latencies.push(...r.latencies);
      for (const [k, v] of Object.entries(r.statuses)) a.statuses[k] = (a.statuses[k] ?? 0) + v;
      a.windowMs += r.windowMs;
      a.sample ??= r.sample;
      for (const name of Object.keys(pids)) {
        const d = (r.after.procs[name] ?? NaN) - (r.before.procs[name] ?? NaN);
        a.cpu[name] = (a.cpu[name] ?? 0) + d;
        a.ours += Number.isFinite(d) ? d : 0;
      }
      a.busy += (r.after.machine?.busy ?? NaN) - (r.before.machine?.busy ?? NaN);
      onTurn?.(target.name, round);
    }
  }
  return Object.fromEntries(targets.map((t, i) => [t.name, summarise(t.name, acc[i], concurrency)]));
}

function summarise(name, a, concurrency) {
  const ok = a.latencies.length;
  const requests = Object.values(a.statuses).reduce((x, y) => x + y, 0);
  return {
    name,
    connections: concurrency,
    ok,
    errors: requests - ok,
    statuses: a.statuses,
    firstErrorBody: requests > ok ? a.sample : null,
    windowMs: a.windowMs,
    perSecond: (ok * 1000) / a.windowMs,
    latencyMs: percentiles(a.latencies),
    cpuMsPerRequest: Object.fromEntries(Object.entries(a.cpu).map(([k, v]) => [k, Number.isFinite(v) ? v / Math.max(1, ok) : null])),
    machineCores: Number.isFinite(a.busy)
      ? { busy: a.busy / a.windowMs, notOurs: Math.max(0, (a.busy - a.ours) / a.windowMs), steal: 0 }
      : null,
  };
}
