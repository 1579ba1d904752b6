export type IdempotencyBegin =
  | { state: 'new' }
  | { state: 'replay'; status: number; body: string }
  | { state: 'mismatch' }
  | { state: 'in_progress' }
  /** The key was revoked (perhaps through another server, which this one's memory of keys cannot know yet). */
  | { state: 'revoked' };

/**
 * Idempotency records, scoped by key. A record older than 24 h counts as absent.
 * `begin` inserts a running record when none exists; a commit's settlement
 * (Charges.commit) turns it into the kept answer.
 */
export interface IdempotencyRecords {
  begin(keyId: string, idemKey: string, requestHash: string, now: Date): Promise<IdempotencyBegin>;
  /** Drops a running record (the decision failed: only successes are stored). */
  abandon(keyId: string, idemKey: string): Promise<void>;
}
