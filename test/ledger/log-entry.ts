import type { Caller } from '../../src/contract/caller.js';
import type { Store } from '../../src/ledger/store.js';
import { IP } from './helpers.js';

/** A decision of `caller` served at `at`, its commit logging it (top answer `top`), as the service's does. */
export async function loggedAt(store: Store, caller: Caller, at: Date, top: string): Promise<void> {
  const reserved = await store.charges.reserve({ caller, depth: 'standard', ip: IP }, at);
  if (!reserved.ok) throw new Error(`expected a reservation, got ${reserved.code}`);
  const entry = { keyId: caller.keyId, passId: caller.passId, door: 'api', mode: 'noul', depth: 'standard' } as const;
  await store.charges.commit(reserved.reservation.id, at, {
    sample: { reservedAt: at, channel: 'api', ms: 1 },
    answer: () => '{}',
    logged: () => ({ ...entry, credits: 0, signal: 'yes', top, topProbability: 0.95, confidence: 0.9, text: null }),
  });
}
