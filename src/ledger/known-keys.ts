import type { Caller } from '../contract/caller.js';

/** How long a server answers a key from what it looked up: a minute of a busy key's requests spared a round trip each. */
export const KNOWN_FOR_MS = 60_000;
/** Keys remembered at most; the longest-known goes first. */
const MOST = 10_000;

/**
 * The active keys this server looked up lately, by fingerprint. Every request starts
 * by authenticating: on PostgreSQL each lookup is a round trip of its own, on SQLite a
 * statement and a turn of the file's queue; a key known here skips it. Staleness is
 * safe because nothing is done on the strength of this alone: everything done for a
 * caller checks, in its own statement, that the key is still active (keys.ts). A
 * revocation through this server forgets the key at once; one through another server
 * is caught by those checks. Unknown keys are not remembered, so a key just created
 * works at once.
 */
export class KnownKeys {
  private readonly known = new Map<string, { caller: Caller; until: number }>();

  get(fingerprint: Buffer, now: number): Caller | undefined {
    const id = fingerprint.toString('hex');
    const entry = this.known.get(id);
    if (entry === undefined) return undefined;
    if (entry.until > now) return entry.caller;
    this.known.delete(id);
    return undefined;
  }

  remember(fingerprint: Buffer, caller: Caller, now: number): void {
    if (this.known.size >= MOST) this.known.delete(this.known.keys().next().value as string);
    this.known.set(fingerprint.toString('hex'), { caller, until: now + KNOWN_FOR_MS });
  }

  forget(keyId: string): void {
    for (const [id, entry] of this.known) if (entry.caller.keyId === keyId) this.known.delete(id);
  }
}
