// What the ledger rows run against a store: one charge (reserve, then commit: the
// money path of a decision) and the ledger work of a whole standard decision as the
// service does it (authenticate, reserve, then a commit that also records the metrics
// sample and reads the day's metrics for the answer, in one transaction).
import { fmt, fmtInt, ratioLine, table } from './report.js';

const dist = (file) => import(new URL(`../../dist/${file}`, import.meta.url).href);

export async function storeOps(store, keys) {
  const { keyFingerprint } = await dist('contract/key.js');
  const callers = keys.map((k) => ({ keyId: k.keyId, passId: k.passId, keyHint: k.keyHint }));
  const prints = keys.map((k) => keyFingerprint(k.key));
  const charge = async (w) => {
    const now = new Date();
    const reserved = await store.charges.reserve({ caller: callers[w], depth: 'standard', ip: '127.0.0.1' }, now);
    if (!reserved.ok) throw new Error(`reserve refused: ${reserved.code}`);
    await store.charges.commit(reserved.reservation.id, new Date());
  };
  const decision = async (w) => {
    const caller = await store.keys.authenticate(prints[w]);
    if (!caller) throw new Error('authenticate failed');
    const now = new Date();
    const reserved = await store.charges.reserve({ caller, depth: 'standard', ip: '127.0.0.1' }, now);
    if (!reserved.ok) throw new Error(`reserve refused: ${reserved.code}`);
    await store.charges.commit(reserved.reservation.id, new Date(), {
      sample: { reservedAt: now, channel: 'api', ms: 1 },
      answer: () => '{}',
    });
  };
  return { charge, decision };
}

export function ledgerLines(label, r, c) {
  const per = (x) => `${fmtInt(x.perSecond)}/s`;
  return [
    ratioLine(`${label} c=${c} charges/s (reserve + commit) ÷ raw inserts/s`, {
      ours: r.charge.perSecond,
      baseline: r.raw.perSecond,
      oursText: per(r.charge),
      baselineText: per(r.raw),
    }),
    ratioLine(`${label} c=${c} decision's ledger work/s ÷ raw inserts/s`, {
      ours: r.decision.perSecond,
      baseline: r.raw.perSecond,
      oursText: per(r.decision),
      baselineText: per(r.raw),
      note: 'authenticate + reserve + commit with its metrics sample (one transaction)',
    }),
  ];
}

export function opsTable(results) {
  return table(
    Object.values(results).map((r) => [
      `${r.name} c=${r.concurrency}`,
      fmtInt(r.ops),
      fmtInt(r.perSecond),
      fmt(r.latencyMs.p50 * 1000, 0),
      fmt(r.latencyMs.p99 * 1000, 0),
      fmt(r.cpuUsPerOp, 1),
      r.machineCores ? fmt(r.machineCores.notOurs, 2) : '—',
    ]),
    ['op', 'ops', 'ops/s', 'p50 µs', 'p99 µs', 'node cpu µs/op', 'cores not ours'],
  );
}
