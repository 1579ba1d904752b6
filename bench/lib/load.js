// Load generation for the HTTP rows: autocannon's programmatic API, closed loop,
// `connections` keep-alive connections with one request in flight on each.
//
// autocannon sends pre-built request bytes on raw sockets and parses answers with a
// small HTTP parser, so per request it costs the load generator far less CPU than an
// undici Pool (our old generator) and leaves more of this 2-core machine to the server
// under test. Its own latency histogram keeps whole milliseconds, too coarse for
// sub-millisecond overheads, so every answer's latency (an hrtime difference, float ms)
// is taken from its 'response' event instead, and only answers completed inside the
// measured window count: windowing is ours, not autocannon's per-second sampling.
//
// A slice = `warmupMs` of unrecorded load (new connections are opened, JIT warms up),
// then `durationMs` recorded, both timed by the answers themselves. `sideBySide` alternates slices of several targets (A, B, C, A, B, C, …) so a
// burst of background load on the shared machine hits them alike.
import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import { cpuMsOf, machineCpuMs } from '../children.js';

/**
 * autocannon's own end of the load, a safety net only: each window is opened and closed
 * by the answers themselves (see `slice`), and this is how long a slice may take at
 * worst before it counts as stalled.
 */
const STALL_FACTOR = 6;
const STALL_EXTRA_MS = 30_000;

/**
 * One slice against one target; resolves once autocannon has closed its connections.
 *
 * The window is measured on the load generator's own clock, by its answers, not by
 * timers: the first answer (or transport error) at least `warmupMs` after the start
 * opens it, the first at least `durationMs` after that closes it, and the load stops
 * there. On a loaded machine timers fire late, and a window kept by timers could
 * outlast the load autocannon was told to send ("the load ended before its measured
 * window did"); here the load runs until the window is closed, however late.
 */
export function slice({ url, method = 'POST', headers, body, connections, warmupMs, durationMs, onWindow }) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const statuses = {};
    const failures = {};
    const startedAt = performance.now();
    let t0 = Infinity;
    let t1 = Infinity;
    let before = null;
    let after = null;
    let sample = null;
    let closed = false;
    const instance = autocannon(
      {
        url,
        method,
        headers,
        body,
        connections,
        pipelining: 1,
        duration: ((warmupMs + durationMs) * STALL_FACTOR + STALL_EXTRA_MS) / 1000,
        sampleInt: 25, // autocannon notices a stop on a sample tick
        timeout: 30,
        // The first non-2xx body of each status is kept for the report.
        setupClient: (client) => {
          let status = 0;
          client.on('headers', (h) => (status = h.statusCode));
          client.on('body', (buf) => {
            if (sample === null && (status < 200 || status >= 300)) sample = `${status} ${buf.toString('utf8').slice(0, 400)}`;
          });
        },
      },
      (error) => {
        if (error) return reject(error);
        if (!closed)
          return reject(
            new Error(`${url}: no answer closed the measured window within ${Math.round(performance.now() - startedAt)} ms (stalled)`),
          );
        resolve({ latencies, statuses, failures, windowMs: t1 - t0, before, after, sample });
      },
    );
    /** Opens or closes the window on this event's time; true when the event falls inside it. */
    const inWindow = (now) => {
      if (closed) return false;
      if (t0 === Infinity) {
        if (now - startedAt < warmupMs) return false;
        before = onWindow?.() ?? null;
        t0 = now;
        return false;
      }
      if (now - t0 >= durationMs) {
        after = onWindow?.() ?? null;
        t1 = now;
        closed = true;
        instance.stop();
      }
      return true;
    };
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (!inWindow(performance.now())) return;
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
    instance.on('reqError', (error) => {
      if (!inWindow(performance.now())) return;
      const code = error.code ?? error.message ?? 'error';
      statuses[code] = (statuses[code] ?? 0) + 1;
      failures[code] ??= String(error.message).slice(0, 300);
    });
  });
}

/** Process CPU (ms) of every pid, plus the machine's, at one moment. */
export function cpuSnapshot(pids) {
  const u = process.cpuUsage();
  return {
    machine: machineCpuMs(),
    procs: Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => [name, pid === 'self' ? (u.user + u.system) / 1000 : cpuMsOf(pid)]),
    ),
  };
}

/**
 * Drives `targets` in alternating slices at the same concurrency and pools each
 * target's slices: latencies, statuses, measured time and the CPU of `pids` (name →
 * pid, or 'self' for this load generator) over the measured windows only.
 */
export async function sideBySide(targets, { connections, slices, warmupMs, sliceWarmupMs, durationMs, pids, onSlice }) {
  const acc = targets.map(() => ({
    latencies: [],
    statuses: {},
    failures: {},
    windowMs: 0,
    cpu: {},
    machine: { busy: 0, steal: 0, ours: 0 },
    sample: null,
  }));
  for (let i = 0; i < slices; i++) {
    for (const [t, target] of targets.entries()) {
      const a = acc[t];
      const r = await slice({
        ...target,
        connections,
        warmupMs: i === 0 ? warmupMs : sliceWarmupMs,
        durationMs: durationMs / slices,
        onWindow: () => cpuSnapshot(pids),
      });
      for (const l of r.latencies) a.latencies.push(l);
      for (const [k, v] of Object.entries(r.statuses)) a.statuses[k] = (a.statuses[k] ?? 0) + v;
      Object.assign(a.failures, r.failures);
      a.sample ??= r.sample;
      a.windowMs += r.windowMs;
      let ours = 0;
      for (const name of Object.keys(pids)) {
        const x = r.before.procs[name];
        const y = r.after.procs[name];
        const d = x == null || y == null ? null : y - x;
        a.cpu[name] = d == null || a.cpu[name] === null ? null : (a.cpu[name] ?? 0) + d;
        ours += d ?? 0;
      }
      if (a.machine && r.before.machine && r.after.machine) {
        a.machine.busy += r.after.machine.busy - r.before.machine.busy;
        a.machine.steal += r.after.machine.steal - r.before.machine.steal;
        a.machine.ours += ours;
      } else a.machine = null;
      onSlice?.(target.name, i);
    }
  }
  return Object.fromEntries(targets.map((target, t) => [target.name, summarise(target.name, acc[t], connections)]));
}

export function percentiles(values) {
  const sorted = Float64Array.from(values).sort();
  const at = (q) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]);
  return {
    mean: sorted.length === 0 ? NaN : sorted.reduce((x, y) => x + y, 0) / sorted.length,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

function summarise(name, a, connections) {
  const ok = a.latencies.length;
  const requests = Object.values(a.statuses).reduce((x, y) => x + y, 0);
  return {
    name,
    connections,
    ok,
    errors: requests - ok,
    statuses: a.statuses,
    failures: a.failures,
    firstErrorBody: requests > ok ? a.sample : null,
    windowMs: a.windowMs,
    perSecond: (ok * 1000) / a.windowMs,
    latencyMs: percentiles(a.latencies),
    // CPU milliseconds per successful request, per process, over the measured windows.
    cpuMsPerRequest: Object.fromEntries(Object.entries(a.cpu).map(([k, v]) => [k, v == null ? null : v / Math.max(1, ok)])),
    cpuCores: Object.fromEntries(Object.entries(a.cpu).map(([k, v]) => [k, v == null ? null : v / a.windowMs])),
    // Machine-wide cores busy, the part not ours (other tenants, kernel threads), steal.
    machineCores: a.machine && {
      busy: a.machine.busy / a.windowMs,
      notOurs: Math.max(0, (a.machine.busy - a.machine.ours) / a.windowMs),
      steal: a.machine.steal / a.windowMs,
    },
  };
}
