import type { Database, Statement } from 'better-sqlite3';
import os from 'node:os';

/**
 * One `decide serve` per SQLite file. A server that starts releases every
 * reservation it finds, which is right only if no other server is deciding on the
 * same file; so a serving process holds a lease, a row naming it, renewed by a
 * heartbeat. Operator commands take no lease and keep working beside a server.
 *
 * A holder is alive while its process is (on this machine, where it can be asked)
 * and its heartbeat is recent. A crashed server's process is gone, so the next start
 * takes over at once; a process of the same number started later is told apart by
 * its heartbeat, which stopped when the server died.
 */

export const HEARTBEAT_MS = 5_000;
/** A same-machine holder whose process exists still counts as dead past this silence: its number was reused. */
const SAME_HOST_SILENCE_MS = 10 * 60_000;
/** Another machine's process cannot be asked (and WAL on a network disk is unsupported): only the heartbeat tells. */
const OTHER_HOST_SILENCE_MS = 30_000;

export interface LeaseHolder {
  pid: number;
  host: string;
  startedAt: string;
  heartbeatAt: string;
}

/** The file is held by a live server. */
export class FileInUse extends Error {
  constructor(readonly holder: LeaseHolder) {
    super(
      `another decide serve (process ${holder.pid} on ${holder.host}, since ${holder.startedAt}) is using this database; ` +
        'one server per SQLite file (several servers share a PostgreSQL database)',
    );
    this.name = 'FileInUse';
  }
}

export class ServerLease {
  private readonly s: Record<string, Statement>;
  private readonly me = { pid: process.pid, host: os.hostname() };

  constructor(db: Database) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      holder: p('SELECT pid, host, started_at AS startedAt, heartbeat_at AS heartbeatAt FROM server_lease WHERE id = 1'),
      take: p(`INSERT INTO server_lease (id, pid, host, started_at, heartbeat_at) VALUES (1, @pid, @host, @now, @now)
               ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host,
                 started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`),
      beat: p('UPDATE server_lease SET heartbeat_at = ? WHERE id = 1 AND pid = ? AND host = ?'),
      give: p('DELETE FROM server_lease WHERE id = 1 AND pid = ? AND host = ?'),
    };
  }

  /** Takes the lease for this process, in the caller's transaction; throws FileInUse when a live server holds it. */
  claim(now: Date): void {
    const holder = this.s.holder.get() as LeaseHolder | undefined;
    if (holder && !this.isMine(holder) && isAlive(holder, now)) throw new FileInUse(holder);
    this.s.take.run({ ...this.me, now: now.toISOString() });
  }

  /** Renews the lease; false when it is no longer this process's (taken over after a long silence). */
  beat(now: Date): boolean {
    return this.s.beat.run(now.toISOString(), this.me.pid, this.me.host).changes === 1;
  }

  give(): void {
    this.s.give.run(this.me.pid, this.me.host);
  }

  private isMine(holder: LeaseHolder): boolean {
    return holder.pid === this.me.pid && holder.host === this.me.host;
  }
}

function isAlive(holder: LeaseHolder, now: Date): boolean {
  const silence = now.getTime() - Date.parse(holder.heartbeatAt);
  if (holder.host !== os.hostname()) return silence < OTHER_HOST_SILENCE_MS;
  return silence < SAME_HOST_SILENCE_MS && processExists(holder.pid);
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
