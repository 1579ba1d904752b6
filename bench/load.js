// Closed-loop load: `concurrency` workers on one undici Pool (one connection each),
// each sending its next request as soon as the previous one is fully read.
//
// A target is driven in slices: each slice first runs `warmupMs` unrecorded, then
// records every request *started* in the next `durationMs` (and waits for them to end).
// The pool, and so its connections, lives across slices; run.js alternates slices of
// the echo baseline and of decide, so both see the same background load.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export function createTarget({ origin, path, body, headers, concurrency }) {
  const pool = new Pool(origin, {
    connections: concurrency,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 120_000,
  });
  let sample = null;
  let completed = 0; // every request that finished, warm-up included

  async function slice({ warmupMs, durationMs, onMeasureStart }) {
    const latencies = [];
    const statuses = {};
    const failures = {};
    const measureStart = performance.now() + warmupMs;
    const measureEnd = measureStart + durationMs;
    let hooked = false;
    let lastDone = measureStart;

    async function worker() {
      for (;;) {
        const begin = performance.now();
        if (begin >= measureEnd) return;
        const measured = begin >= measureStart;
        if (measured && !hooked) {
          hooked = true;
          onMeasureStart?.();
        }
        let status;
        try {
          const res = await pool.request({ method: 'POST', path, headers, body });
          status = res.statusCode;
          const bytes = await res.body.arrayBuffer();
          if (sample === null && status === 200) sample = Buffer.from(bytes).toString('utf8');
          else if (status !== 200 && !failures[status]) failures[status] = Buffer.from(bytes).toString('utf8').slice(0, 300);
        } catch (error) {
          status = error.code ?? error.name ?? 'error';
          failures[status] ??= String(error.message).slice(0, 300);
        }
        const end = performance.now();
        completed++;
        if (!measured) continue;
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status === 200) latencies.push(end - begin);
        if (end > lastDone) lastDone = end;
      }
    }

    await Promise.all(Array.from({ length: concurrency }, worker));
    return { latencies, statuses, failures, windowMs: lastDone - measureStart };
  }

  return {
    slice,
    completed: () => completed,
    sample: () => sample,
    close: () => pool.close().catch(() => pool.destroy()),
  };
}

export function summarise(latencies, windowMs) {
  const sorted = Float64Array.from(latencies).sort();
  const at = (q) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
  const mean = sorted.length === 0 ? NaN : sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return {
    ok: sorted.length,
    windowMs,
    perSecond: (sorted.length * 1000) / windowMs,
    latencyMs: { mean, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.length ? sorted[sorted.length - 1] : NaN },
  };
}
