// In-process throughput of async operations (the ledger rows): `concurrency` workers
// each run `op` back to back for a slice's duration; the operations are measured in
// alternating slices, like the HTTP targets.
import { performance } from 'node:perf_hooks';
import { machineCpuMs } from '../children.js';
import { percentiles } from './load.js';

async function timed(op, concurrency, ms, record) {
  const end = performance.now() + ms;
  let count = 0;
  const worker = async (w) => {
    for (let i = 0; performance.now() < end; i++) {
      const t = performance.now();
      await op(w, i);
      if (record) record.push(performance.now() - t);
      count++;
    }
  };
  const cpu = process.cpuUsage();
  const machine = machineCpuMs();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  const used = process.cpuUsage(cpu);
  const machineAfter = machineCpuMs();
  const busyMs = machine && machineAfter ? machineAfter.busy - machine.busy : null;
  return { count, ms: performance.now() - t0, cpuMs: (used.user + used.system) / 1000, busyMs };
}

/**
 * `ops`: [{ name, op(worker, i) }]; returns per name: ops/s, latency percentiles (ms),
 * this process's CPU µs per op, and the machine's cores busy over its slices, with the
 * part of them not this process's (other tenants; for PostgreSQL, its server too).
 */
export async function alternateOps(ops, { concurrency, slices, durationMs, warmupMs }) {
  const acc = Object.fromEntries(ops.map((o) => [o.name, { count: 0, ms: 0, cpuMs: 0, busyMs: 0, latencies: [] }]));
  for (const o of ops) await timed(o.op, concurrency, warmupMs, null);
  for (let s = 0; s < slices; s++) {
    for (const o of ops) {
      const a = acc[o.name];
      const r = await timed(o.op, concurrency, durationMs / slices, a.latencies);
      a.count += r.count;
      a.ms += r.ms;
      a.cpuMs += r.cpuMs;
      a.busyMs = a.busyMs === null || r.busyMs === null ? null : a.busyMs + r.busyMs;
    }
  }
  return Object.fromEntries(
    ops.map((o) => {
      const a = acc[o.name];
      return [
        o.name,
        {
          name: o.name,
          concurrency,
          ops: a.count,
          perSecond: (a.count * 1000) / a.ms,
          latencyMs: percentiles(a.latencies),
          cpuUsPerOp: (a.cpuMs * 1000) / Math.max(1, a.count),
          machineCores: a.busyMs === null ? null : { busy: a.busyMs / a.ms, notOurs: Math.max(0, (a.busyMs - a.cpuMs) / a.ms) },
        },
      ];
    }),
  );
}
