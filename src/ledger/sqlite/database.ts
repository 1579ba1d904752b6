import Database from 'better-sqlite3';
import { migrate } from './migrations.js';

/** How long opening and migrating wait for another connection's lock, before the store serves requests. */
export const OPEN_BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens (creating if needed) and migrates the ledger file.
 *
 * - `journal_mode = WAL`: readers never block the writer and vice versa, so the
 *   server keeps answering while an operator command funds a pass.
 * - `synchronous = NORMAL`: in WAL mode this never corrupts the file and never loses
 *   a commit when the *process* dies; only an OS crash or power cut can roll back the
 *   last few commits (the WAL is synced at checkpoints, not at every commit). A
 *   decision writes two transactions (reserve, commit), and FULL would put an fsync on
 *   each. What such a rollback can lose is whole transactions, never half of one: a
 *   charge and its balance change vanish together, so the ledger stays balanced.
 * - `busy_timeout`: the server and `decide pass fund` share the file. Opening waits
 *   for the other's lock; afterwards it is 0 and a locked call fails at once, to be
 *   tried again off the event loop (busy.ts), never sitting out a lock inside it.
 * - `foreign_keys = ON`: SQLite leaves them off per connection unless asked.
 */
export function openDatabase(path: string): Database.Database {
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${OPEN_BUSY_TIMEOUT_MS}`);
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`Could not put ${path} in WAL mode (got ${String(mode)}).`);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    db.pragma('busy_timeout = 0');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
