import { afterEach, beforeEach } from 'vitest';
import type { Store } from '../../src/ledger/store.js';
import type { LedgerHarness } from './store-suite.js';

/**
 * A fresh store for every test of a suite, and every store a test opened closed after
 * it: `current()` is the test's own store, `keep(other)` hands over a second one (a
 * second server on the same ledger) to be closed with it.
 */
export function openedStores(h: LedgerHarness): { current(): Store; keep(other: Store): void } {
  let store: Store;
  const opened: Store[] = [];
  beforeEach(async () => {
    store = await h.open();
    opened.push(store);
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
  });
  return { current: () => store, keep: (other) => void opened.push(other) };
}
