import type { Caller } from '../contract/caller.js';

export interface CreatedKey {
  /** Shown once, never stored. */
  key: string;
  keyId: string;
  keyHint: string;
  passId: string;
  createdAt: string;
}

/** A key as the operator sees it: never the key, its hint. */
export interface KeyRecord {
  id: string;
  keyHint: string;
  /** What the operator called it at creation (`--name`), or null. */
  name: string | null;
  passId: string;
  createdAt: string;
  /**
   * When it last paid a decision or read its usage, to within the store's flush
   * interval (last-use.ts); null when never seen since it was recorded.
   */
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface RevokedKey {
  keyHint: string;
  revokedAt: string;
}

/** The caller's key is revoked: it was active when it was looked up, and no longer is. */
export class KeyNotActive extends Error {
  constructor(keyId: string) {
    super(`Key ${keyId} is revoked.`);
    this.name = 'KeyNotActive';
  }
}

/**
 * API keys: made by the operator, presented by callers, revoked by either.
 *
 * A store may answer `authenticate` from keys it looked up a short while ago (the
 * PostgreSQL store does, to spare every request a round trip), so a key revoked
 * through another server can pass `authenticate` for that while. Everything done for a
 * caller checks in the same statement that its key is still active: a reserve refuses
 * `key_revoked`, `usage` throws KeyNotActive, `revoke` finds nothing to revoke, an
 * idempotency record is not replayed (`revoked`); what reads nothing else (the model
 * list) asks `isActive`.
 */
export interface Keys {
  /** A new key linked to `passId`, or to a new pass when omitted, named `name` (checked: rules.ts `checkKeyName`); throws for an unknown pass. */
  create(now: Date, passId?: string, name?: string): Promise<CreatedKey>;
  /** The active key whose SHA-256 fingerprint this is, or null (unknown or revoked). */
  authenticate(fingerprint: Buffer): Promise<Caller | null>;
  /** Whether the key is active now, asked of the ledger itself (never of what this server remembers). */
  isActive(keyId: string): Promise<boolean>;
  /** Revokes an active key; null when it was not active. */
  revoke(keyId: string, now: Date): Promise<RevokedKey | null>;
  /** The key's free decisions used on the UTC day of `now`, and its pass's credits; throws for an unknown pass, KeyNotActive for a revoked key. */
  usage(caller: Caller, now: Date): Promise<{ freeUsed: number; passCredits: number }>;

  /** Every key, or those of one pass, oldest first; revoked ones too. */
  list(filter?: { passId?: string }): Promise<KeyRecord[]>;
  /**
   * The keys `ref` names: a key id (`key_…`), or a hint as shown (`dcd_api_…wxyz`,
   * with `...` for the ellipsis too) or its last four characters. Several when a hint
   * is shared; none when nothing matches.
   */
  find(ref: string): Promise<KeyRecord[]>;
  /**
   * Remembers that the key was used at `now`, in memory only: nothing is written on
   * the request's path. The store writes what it noted every minute and when it
   * closes (last-use.ts).
   */
  noteUse(keyId: string, now: Date): void;
  /** Writes what noteUse remembered now (before a listing, so it is current). */
  flushUse(): Promise<void>;
}
