#!/usr/bin/env node
// Side by side, in one process: the SQLite ledger of two builds of decide, each on a
// file of its own, driven in alternating slices (A, B, A, B, …) so whatever else the
// machine does lands on both. How each change to the write path was measured:
//
//   node bench/ledger-ab.js <before-root> <after-root> [concurrency] [ms]
//
// With BENCH_AB_PG set to a PostgreSQL URL, the two ledgers are schemas of their own
// on that server instead (dropped after), and no WAL pages are counted.
//
// A root is a checkout with `dist/` built. Each store is opened and started as
// `decide serve` starts it (recoverInterrupted), then measured on the ledger work of a
// standard decision (authenticate, reserve, commit with its metrics sample) and the
// same with an Idempotency-Key. Prints ops/s, this process's CPU µs per op, p50/p99
// latency, and the WAL pages each writes per decision (on a store not serving, so no
// checkpoint runs while it is counted), with after ÷ before ratios.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ledgerCalls } from './lib/ledger-calls.js';
import { alternateOps } from './lib/ops.js';
import { abLedgers } from './lib/pg-schema.js';
import { walPagesPerOp } from './lib/wal.js';

const [rootA, rootB, c = '1', ms = '6000'] = process.argv.slice(2);
if (!rootA || !rootB) {
  process.stderr.write('usage: node bench/ledger-ab.js <before-root> <after-root> [concurrency] [ms]\n');
  process.exit(2);
}
const concurrency = Number(c);
const LIMITS = { freePerKey: 20, freePerIp: 0, freePerSite: 0 };
const tmp = mkdtempSync(path.join(os.tmpdir(), 'decide-ledger-ab-'));
const PG = process.env.BENCH_AB_PG;
const ledgers = abLedgers(tmp);

async function build(label, root) {
  const dist = (file) => import(path.join(path.resolve(root), 'dist', file));
  const { openStore } = await dist('ledger/open.js');
  const { keyFingerprint } = await dist('contract/key.js');
  const file = await ledgers.location(label);
  const store = await openStore(file, LIMITS, { sweepIntervalMs: 0 });
  const calls = ledgerCalls(store);
  const keys = [];
  for (let i = 0; i < Math.max(concurrency, 1); i++) {
    const key = await calls.newKey();
    await calls.fund(key.passId, 10_000_000, 'bench');
    keys.push({ print: keyFingerprint(key.key) });
  }
  let n = 0;
  const decision = (idem) => async (w) => {
    const caller = await calls.authenticate(keys[w].print);
    const idemKey = idem ? `ab-${label}-${n++}` : undefined;
    if (idemKey) await calls.begin(caller.keyId, idemKey, 'hash');
    const reservedAt = new Date();
    const reserved = await calls.reserve(caller, reservedAt);
    if (!reserved.ok) throw new Error(`reserve refused: ${reserved.code}`);
    await calls.commit(reserved.reservation.id, new Date(), {
      reservedAt,
      idempotency: idemKey && { keyId: caller.keyId, idemKey },
      answer: () => '{"a":1}',
    });
  };
  // A few thousand charges first, so the tables are not all one page.
  for (let i = 0; i < 3000; i++) await decision(false)(0);
  const wal = PG
    ? { plain: NaN, idem: NaN }
    : {
        plain: await walPagesPerOp(file, decision(false), { concurrency }),
        idem: await walPagesPerOp(file, decision(true), { concurrency }),
      };
  await store.recoverInterrupted();
  return { label, store, wal, plain: decision(false), idem: decision(true) };
}

const a = await build('before', rootA);
const b = await build('after', rootB);
try {
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  const r = await alternateOps(
    [
      { name: 'before', op: a.plain },
      { name: 'after', op: b.plain },
      { name: 'before+idem', op: a.idem },
      { name: 'after+idem', op: b.idem },
    ],
    { concurrency, slices: 6, durationMs: Number(ms), warmupMs: 500 },
  );
  const row = (x) =>
    `${x.name.padEnd(12)} ${x.perSecond.toFixed(0).padStart(7)}/s  cpu ${x.cpuUsPerOp.toFixed(1).padStart(6)} µs  ` +
    `p50 ${(x.latencyMs.p50 * 1000).toFixed(0).padStart(5)} µs  p99 ${(x.latencyMs.p99 * 1000).toFixed(0).padStart(6)} µs`;
  const ratio = (y, x) =>
    `after ÷ before: ops/s ×${(y.perSecond / x.perSecond).toFixed(2)}, cpu/op ×${(y.cpuUsPerOp / x.cpuUsPerOp).toFixed(2)}, ` +
    `p99 ×${(y.latencyMs.p99 / x.latencyMs.p99).toFixed(2)}`;
  console.log(
    `c=${concurrency}, ${ms} ms per op in 6 alternating slices; load average before ${load}, after ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  if (!PG)
    console.log(
      `WAL pages per decision (c=${concurrency}): before ${a.wal.plain.toFixed(2)} (+idem ${a.wal.idem.toFixed(2)}), after ${b.wal.plain.toFixed(2)} (+idem ${b.wal.idem.toFixed(2)})`,
    );
  for (const x of Object.values(r)) console.log(row(x));
  console.log(ratio(r.after, r.before));
  console.log(`with Idempotency-Key: ${ratio(r['after+idem'], r['before+idem'])}`);
} finally {
  await a.store.close();
  await b.store.close();
  await ledgers.drop();
  rmSync(tmp, { recursive: true, force: true });
}
