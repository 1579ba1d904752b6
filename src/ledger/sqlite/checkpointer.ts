import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';

/**
 * WAL checkpoints off the request path. Left to itself, SQLite checkpoints inside the
 * commit that takes the WAL past 1,000 pages: that request copies the WAL back into
 * the file and waits for two fsyncs, about once per hundred decisions, which is most of
 * a serving ledger's p99. Instead a worker thread with a connection of its own runs a
 * PASSIVE checkpoint every CHECKPOINT_MS: passive never takes the write lock, so
 * decisions go on writing while it copies, and the next write after a complete
 * checkpoint starts the WAL over from its beginning.
 *
 * The serving connection keeps a far-off auto-checkpoint (SAFETY_NET_PAGES) for the
 * case the worker falls behind, and goes back to SQLite's own when the worker is gone.
 */

/** How often the worker checkpoints; at a thousand decisions a second, a few hundred pages each time. */
export const CHECKPOINT_MS = 100;
/** The serving connection's auto-checkpoint while the worker runs (~40 MB of WAL). */
const SAFETY_NET_PAGES = 10_000;
const SQLITE_DEFAULT_PAGES = 1_000;

// The worker runs this text, not a module of ours: it works alike from dist/ and from
// the TypeScript sources under a test runner. Errors (the file locked by another
// process, a checkpoint that could not finish) are left for the next round.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 0');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export class Checkpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(db: Database, everyMs: number = CHECKPOINT_MS) {
    db.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), path: db.name, everyMs },
    });
    // A server idle but for its worker still exits when asked to.
    this.worker.unref();
    this.exited = new Promise((resolve) => {
      const fallBack = () => {
        if (db.open) db.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_PAGES}`);
        resolve();
      };
      this.worker.once('error', fallBack);
      this.worker.once('exit', fallBack);
    });
  }

  /** Stops the worker after its current checkpoint; the file is closed by then. */
  async stop(): Promise<void> {
    // Referenced again, or a process with nothing else left to do would exit before it has.
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.exited;
  }
}
