// Row 4a, ledger on SQLite: charges/s of the store (through dist/, in this process)
// against raw better-sqlite3 INSERTs of a charge-like row, one autocommit transaction
// each, in a file with the store's pragmas (WAL, synchronous=NORMAL). better-sqlite3 is
// synchronous, so one worker: the figure is single-core work per operation.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { alternateOps } from '../lib/ops.js';
import { ledgerLines, opsTable, storeOps } from '../lib/ledger.js';
import { fmt, ratioLine } from '../lib/report.js';
import { makeKeys, openLedger } from '../lib/servers.js';
import { walPagesPerOp } from '../lib/wal.js';

const WAL_GOAL = 4;
/** Decisions under way at once for the shared-transaction WAL figure. */
const SHARED_C = 16;

export default {
  id: 'ledger-sqlite',
  title: '4 Ledger (SQLite)',
  async run(ctx) {
    const { config } = ctx;
    const db = path.join(ctx.tmp, 'ledger.db');
    const keys = await makeKeys(db);
    const store = await openLedger(db);
    const raw = new Database(path.join(ctx.tmp, 'raw.db'));
    try {
      raw.pragma('busy_timeout = 5000');
      raw.pragma('journal_mode = WAL');
      raw.pragma('synchronous = NORMAL');
      raw.exec(`CREATE TABLE raw (id TEXT PRIMARY KEY, key_id TEXT NOT NULL, pass_id TEXT NOT NULL, kind TEXT NOT NULL,
                cost INTEGER NOT NULL, state TEXT NOT NULL, day TEXT NOT NULL, created_at TEXT NOT NULL)`);
      const insert = raw.prepare(
        `INSERT INTO raw (id, key_id, pass_id, kind, cost, state, day, created_at) VALUES (?, ?, ?, 'credits', 1, 'reserved', ?, ?)`,
      );
      const { charge, decision } = await storeOps(store, keys);
      // WAL pages first, on the store not yet serving (no checkpoint runs while they are
      // counted); then it is started as decide serve starts it, checkpointer included.
      for (let i = 0; i < 500; i++) await decision(0);
      const wal = await walPagesPerOp(db, decision);
      // The same at c=16, every worker on the one key: the reserves and commits of one
      // event-loop turn share a transaction (group commit), and so the pages they change.
      const walShared = await walPagesPerOp(db, () => decision(0), { concurrency: SHARED_C });
      await store.recoverInterrupted();
      const rawInsert = async () => {
        const now = new Date().toISOString();
        insert.run(randomUUID(), keys[0].keyId, keys[0].passId, now.slice(0, 10), now);
      };
      for (let i = 0; i < 3000; i++) await rawInsert();
      const rawWal = await walPagesPerOp(path.join(ctx.tmp, 'raw.db'), rawInsert);
      ctx.progress('row 4: SQLite store vs raw better-sqlite3 inserts');
      const r = await alternateOps(
        [
          { name: 'raw', op: rawInsert },
          { name: 'charge', op: charge },
          { name: 'decision', op: decision },
        ],
        { concurrency: 1, slices: config.slices, durationMs: config.ledgerMs, warmupMs: 300 },
      );
      for (const x of Object.values(r)) ctx.noteMachine(`row 4 ${x.name}`, x.machineCores);
      const lines = [
        ...ledgerLines('SQLite', r, 1),
        ratioLine(`SQLite c=1 WAL pages per decision's ledger work ÷ the goal's 4`, {
          ours: wal,
          baseline: WAL_GOAL,
          oursText: fmt(wal, 2),
          baselineText: String(WAL_GOAL),
          digits: 2,
          max: 1,
          note: `pages written whole to the WAL by authenticate + reserve + commit with its sample, one decision at a time; a raw insert writes ${fmt(rawWal, 2)}`,
        }),
        ratioLine(`SQLite c=${SHARED_C} WAL pages per decision's ledger work ÷ the goal's 4`, {
          ours: walShared,
          baseline: WAL_GOAL,
          oursText: fmt(walShared, 2),
          baselineText: String(WAL_GOAL),
          digits: 2,
          max: 1,
          note: `the same with ${SHARED_C} decisions under way at once: the reserves and commits of one event-loop turn share one transaction and the pages it writes`,
        }),
      ];
      return { lines, details: opsTable(r), data: { ...r, walPages: { decision: wal, [`decisionC${SHARED_C}`]: walShared, raw: rawWal } } };
    } finally {
      raw.close();
      await store.close();
    }
  },
};
