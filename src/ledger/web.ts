import type { CreatedKey, RevokedKey } from './keys.js';
import type { DayUsage } from './usage.js';
import type { Caller } from '../contract/caller.js';

/**
 * The browser's side of the ledger: passes verified once and keys created from a page,
 * each counted per client IP and UTC day (only a fingerprint of the IP is stored), a
 * pass's own keys, and the server's settings. Apart from the operator's `Passes` and
 * `Keys` because everything here is scoped to one pass (the page's cookie) and limited.
 */
export interface Web {
  /**
   * The value stored under `name`, storing `initial` (at `now`) first when there is
   * none: the first writer wins, so servers sharing a database agree. Holds the pass
   * cookie's signing secret when the operator gives none.
   */
  setting(name: string, initial: string, now: Date): Promise<string>;
  /**
   * A new pass, unless `ip` already created `perIpLimit` passes on the UTC day of `now`
   * (0 = no limit): then null, and nothing is written. The count and the pass move in
   * one transaction.
   */
  createPass(request: { ip: string; perIpLimit: number }, now: Date): Promise<{ passId: string; createdAt: string } | null>;
  /**
   * A new key on `passId`, unless `ip` already created `perIpLimit` keys on the UTC day
   * of `now`: then null, the count unchanged, and a pass that holds nothing (no key ever,
   * never funded) removed, since it was made for this key and would stay empty. All of
   * it in one transaction. Throws for an unknown pass.
   *
   * A replacement is not counted against the IP: the key of a pass the operator funded
   * whose keys are all revoked (it had some), when none of them was created on the
   * UTC day of `now`. Without it such a pass, credits and all, could not pay for anything
   * once its network had made its keys of the day. Its bounds: only while the pass has
   * no active key, so at most one live key is ever made this way; and once per pass and
   * day, since every new key brings a new free allowance and a revoke-and-create loop
   * must not mint them. Checked under the pass's lock, in the same transaction.
   */
  createKey(request: { passId: string; ip: string; perIpLimit: number }, now: Date): Promise<CreatedKey | null>;
  /** Revokes an active key of `passId`; null when the pass has no such active key. */
  revokeKey(passId: string, keyId: string, now: Date): Promise<RevokedKey | null>;
  /**
   * Names an active key of `passId` (`name` checked: rules.ts `checkKeyName`), or clears
   * its name (null); false when the pass has no such active key, and nothing changes.
   */
  nameKey(passId: string, keyId: string, name: string | null): Promise<boolean>;
  /** The caller of an active key of `passId` (a web decision spends it), or null. */
  caller(passId: string, keyId: string): Promise<Caller | null>;
  /** Free decisions used on the UTC day of `now` by each key of `passId` (keys without any are left out). */
  freeUsage(passId: string, now: Date): Promise<Record<string, number>>;
  /**
   * What `passId` was charged on each of the last HISTORY_DAYS UTC days up to the day of
   * `now` (usage.ts): committed charges only (a released one took nothing), oldest day
   * first, a day without use as zeros. No index reads charges by pass (a decision's
   * writes are kept few), so this reads through the charges table: fine for a page its
   * owner opens, not for a request's path.
   */
  history(passId: string, now: Date): Promise<DayUsage[]>;
}
