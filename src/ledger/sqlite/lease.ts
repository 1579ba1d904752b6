import type { Database, Statement } from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import os from 'node:os';

/**
 * One `decide serve` per SQLite file. A server that starts releases every
 * reservation it finds, which is right only if no other server is deciding on the
 * same file; so a serving process holds a lease, a row naming it, renewed by a
 * heartbeat. Operator commands take no lease and keep working beside a server.
 *
 * A holder is named by a random id drawn at its start, not by its process number and
 * host name: two containers on one volume are each process 1 on the same host name,
 * and the second took the first's lease for its own and gave back its in-flight
 * reservations, which were then served uncharged.
 *
 * A holder is alive while its heartbeat is recent and, on this machine, its process
 * exists. A crashed server's process is gone, so the next start takes over at once;
 * a process of the same number started later is told apart by its heartbeat, which
 * stopped when the server died. A holder of this very process number (ourselves in
 * another PID namespace, or our own previous life in a restarted container) cannot be
 * asked: only its heartbeat tells, as for another machine.
 */

export const HEARTBEAT_MS = 5_000;
/** A same-machine holder whose process exists still counts as dead past this silence: its number was reused. */
const SAME_HOST_SILENCE_MS = 10 * 60_000;
/** Another machine's process cannot be asked (and WAL on a network disk is unsupported): only the heartbeat tells. */
const OTHER_HOST_SILENCE_MS = 30_000;

export interface LeaseHolder {
  /** Drawn at random when the server starts; '' for a lease written before holders had one. */
  holder: string;
  pid: number;
  host: string;
  startedAt: string;
  heartbeatAt: string;
}

/** The file is held by a live server. */
export class FileInUse extends Error {
  constructor(readonly holder: LeaseHolder) {
    super(
      `another decide serve (process ${holder.pid} on ${holder.host}, since ${holder.startedAt}, last heard from at ${holder.heartbeatAt}) is using this database; ` +
        'one server per SQLite file (several servers share a PostgreSQL database)',
    );
    this.name = 'FileInUse';
  }
}

export class ServerLease {
  private readonly s: Record<string, Statement>;
  private readonly me = { holder: randomBytes(12).toString('base64url'), pid: process.pid, host: os.hostname() };

  constructor(db: Database) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      holder: p('SELECT holder, pid, host, started_at AS startedAt, heartbeat_at AS heartbeatAt FROM server_lease WHERE id = 1'),
      take: p(`INSERT INTO server_lease (id, holder, pid, host, started_at, heartbeat_at) VALUES (1, @holder, @pid, @host, @now, @now)
               ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, host = excluded.host,
                 started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`),
      beat: p('UPDATE server_lease SET heartbeat_at = ? WHERE id = 1 AND holder = ?'),
      give: p('DELETE FROM server_lease WHERE id = 1 AND holder = ?'),
    };
  }

  /** Takes the lease for this process, in the caller's transaction; throws FileInUse when a live server holds it. */
  claim(now: Date): void {
    const holder = this.s.holder.get() as LeaseHolder | undefined;
    if (holder && !this.isMine(holder) && isAlive(holder, now)) throw new FileInUse(holder);
    this.s.take.run({ ...this.me, now: now.toISOString() });
  }

  /** Renews the lease; the holder now when it is no longer this server's (taken over after a long silence), else null. */
  beat(now: Date): LeaseHolder | null {
    if (this.s.beat.run(now.toISOString(), this.me.holder).changes === 1) return null;
    return (this.s.holder.get() as LeaseHolder | undefined) ?? { holder: '', pid: 0, host: '(nobody)', startedAt: '', heartbeatAt: '' };
  }

  give(): void {
    this.s.give.run(this.me.holder);
  }

  private isMine(holder: LeaseHolder): boolean {
    return holder.holder === this.me.holder;
  }
}

function isAlive(holder: LeaseHolder, now: Date): boolean {
  const silence = now.getTime() - Date.parse(holder.heartbeatAt);
  // Another machine, or our own process number (another PID namespace): it cannot be asked.
  if (holder.host !== os.hostname() || holder.pid === process.pid) return silence < OTHER_HOST_SILENCE_MS;
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
