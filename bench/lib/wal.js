// WAL pages a SQLite write path writes: the frames the WAL holds after `count` runs of
// `op` (by `concurrency` workers), started from an empty WAL, divided by `count`. A second connection reads the
// count with a PASSIVE checkpoint (which reports the WAL's frames). The store must not
// checkpoint while this runs, so `count` stays well below SQLite's auto-checkpoint
// (1,000 frames) and no checkpointer is running on the file.
import Database from 'better-sqlite3';

export async function walPagesPerOp(file, op, { count = 48, concurrency = 1 } = {}) {
  const probe = new Database(file);
  try {
    probe.pragma('wal_checkpoint(TRUNCATE)');
    const each = Math.ceil(count / concurrency);
    count = each * concurrency;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, w) => {
        for (let i = 0; i < each; i++) await op(w, i);
      }),
    );
    return probe.pragma('wal_checkpoint(PASSIVE)')[0].log / count;
  } finally {
    probe.close();
  }
}
