import { parseKeyRef } from './key-ref.js';
import type { KeyRecord } from './keys.js';
import type { Store } from './store.js';

/** What revoking the key a reference names came to; the CLI and the operator API word it each their way. */
export type RevokeOutcome =
  | { kind: 'revoked' | 'already'; key: KeyRecord; revokedAt: string }
  | { kind: 'invalid' }
  | { kind: 'unknown' }
  | { kind: 'ambiguous'; ids: string[] };

/**
 * Revokes the key `ref` names (key-ref.ts): by id, or by a hint only one key has.
 * Revoking a revoked key changes nothing and says when it was revoked. The ledger's
 * own guard makes two revocations at once agree on one time.
 */
export async function revokeByRef(store: Store, ref: string, now: Date): Promise<RevokeOutcome> {
  if (!parseKeyRef(ref)) return { kind: 'invalid' };
  const found = await store.keys.find(ref);
  if (found.length === 0) return { kind: 'unknown' };
  if (found.length > 1) return { kind: 'ambiguous', ids: found.map((k) => k.id) };
  const [key] = found;
  if (key.revokedAt === null) {
    const revoked = await store.keys.revoke(key.id, now);
    if (revoked) return { kind: 'revoked', key, revokedAt: revoked.revokedAt };
  }
  // Revoked before, or by someone else between the look-up and now.
  const [again] = await store.keys.find(key.id);
  return { kind: 'already', key, revokedAt: again.revokedAt ?? now.toISOString() };
}
