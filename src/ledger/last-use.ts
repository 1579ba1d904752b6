/** How often a serving store writes the uses it noted: "last used" is true to within this. */
export const LAST_USE_FLUSH_MS = 60_000;

/**
 * When each key was last used, kept in memory between writes. A decision must not pay
 * for this bookkeeping: a write per request would add a page to every decision's
 * transaction (SQLite) or a round trip (PostgreSQL). Instead noting a use is a Map
 * set, and the store writes the latest time of each key used since the last write
 * in one statement or transaction, once a minute and when it closes. What a process
 * killed without closing noted in its last minute is lost: "last used" may then read
 * up to a minute early, never late.
 */
export class LastUse {
  private pending = new Map<string, number>();

  note(keyId: string, at: number): void {
    const seen = this.pending.get(keyId);
    if (seen === undefined || at > seen) this.pending.set(keyId, at);
  }

  /** What was noted since the last take, as ISO times, and forgets it. */
  take(): Array<{ keyId: string; at: string }> {
    if (this.pending.size === 0) return [];
    const taken = [...this.pending].map(([keyId, at]) => ({ keyId, at: new Date(at).toISOString() }));
    this.pending = new Map();
    return taken;
  }

  /** Puts back what a failed write took, unless a later use was noted meanwhile. */
  restore(taken: Array<{ keyId: string; at: string }>): void {
    for (const { keyId, at } of taken) this.note(keyId, Date.parse(at));
  }
}
