#!/usr/bin/env node
// Which pages a decision's ledger work writes to SQLite's WAL, by table or index:
// node bench/wal-frames.js [decisions] (after `npm run build`). A store on a fresh file
// serves 500 decisions one at a time (past the key's free allowance, so pass credits),
// then the WAL is emptied and `decisions` more run; each transaction's frames are read
// from the WAL file and named by the b-tree their page belongs to (SQLite's dbstat).
// Prints the frames per decision and each distinct transaction shape with its count.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { storeOps } from './lib/ledger.js';
import { makeKeys, openLedger } from './lib/servers.js';

const count = Number(process.argv[2] ?? 40);
const dir = mkdtempSync(path.join(os.tmpdir(), 'decide-wal-frames-'));
const file = path.join(dir, 'ledger.db');
try {
  const keys = await makeKeys(file);
  const store = await openLedger(file);
  const probe = new Database(file);
  try {
    const { decision } = await storeOps(store, keys);
    for (let i = 0; i < 500; i++) await decision(0);
    probe.pragma('wal_checkpoint(TRUNCATE)');
    for (let i = 0; i < count; i++) await decision(0);
    const transactions = readTransactions(readFileSync(`${file}-wal`));
    probe.pragma('wal_checkpoint(TRUNCATE)');
    const owner = new Map(
      probe
        .prepare('SELECT name, pageno FROM dbstat')
        .all()
        .map((r) => [r.pageno, r.name]),
    );
    const frames = transactions.reduce((n, t) => n + t.length, 0);
    process.stdout.write(`${(frames / count).toFixed(2)} frames per decision, ${transactions.length} transactions\n`);
    const shapes = new Map();
    for (const pages of transactions) {
      const shape = pages.map((page) => owner.get(page) ?? `page ${page}`).join(' + ');
      shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
    }
    for (const [shape, n] of [...shapes].sort((a, b) => b[1] - a[1])) process.stdout.write(`${String(n).padStart(5)}  ${shape}\n`);
  } finally {
    probe.close();
    await store.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** The WAL's frames, as the page numbers of each committed transaction (a frame with a database size ends one). */
function readTransactions(wal) {
  const pageSize = wal.readUInt32BE(8);
  const transactions = [];
  let current = [];
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    current.push(wal.readUInt32BE(at));
    if (wal.readUInt32BE(at + 4) !== 0) {
      transactions.push(current);
      current = [];
    }
  }
  return transactions;
}
