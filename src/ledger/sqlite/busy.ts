import { withRetries } from '../../net/retry.js';
import { ledgerUnavailable } from '../unavailable.js';

/**
 * Waiting for another process's lock without stopping the server. The connection's
 * own busy timeout is zero (database.ts): better-sqlite3 would sit out a lock on the
 * event loop, freezing every route. Instead a call that meets a lock fails at once
 * and is tried again here after a pause on the event loop, so pages, metrics and the
 * MCP server keep answering while a decision waits for its turn.
 */

/** How long a call waits for a lock held elsewhere before the ledger counts as unavailable. */
export const LOCK_WAIT_MS = 5_000;

const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 50;

/** Another connection holds the lock: worth waiting for. */
const LOCKED = /^SQLITE_(BUSY|LOCKED)/;
/** The file cannot be written at all right now: no use waiting here. */
const BROKEN = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|PROTOCOL|CORRUPT|NOTADB)/;

/**
 * Runs `work` (one statement or one transaction, all or nothing) until it gets past a
 * lock, for at most `waitMs`; then, or when the file itself fails, the ledger is
 * unavailable (503 `ledger_unavailable`). Other errors are the caller's.
 */
export async function whenUnlocked<T>(work: () => T, waitMs: number = LOCK_WAIT_MS): Promise<T> {
  const deadline = performance.now() + waitMs;
  try {
    // The first attempt runs at once, within this call, as `work()` alone would.
    return await withRetries(async () => work(), {
      attempts: Infinity,
      retryable: (error) => LOCKED.test(sqliteCode(error) ?? ''),
      backoff: { baseMs: FIRST_PAUSE_MS, maxMs: LONGEST_PAUSE_MS },
      maxWaitMs: () => deadline - performance.now(),
    });
  } catch (error) {
    const code = sqliteCode(error);
    if (code && BROKEN.test(code)) throw ledgerUnavailable(`the database file failed: ${code}`, error);
    if (code && LOCKED.test(code)) throw ledgerUnavailable('the database is locked by another process', error);
    throw error;
  }
}

/** SQLite's result code of a failure: better-sqlite3's own, or that of the driver error a `ledger_unavailable` carries as its cause. */
export function sqliteCode(error: unknown): string | null {
  for (const candidate of [error, (error as { cause?: unknown } | null)?.cause]) {
    const code = (candidate as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return code;
  }
  return null;
}
