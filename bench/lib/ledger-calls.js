// The ledger calls an A/B script makes, for a store of either shape: the concern
// modules (`store.charges.reserve`, since the Store was split by concern) or the flat
// methods of the builds before it, so a checkout from either side can be the
// "before" of a comparison.

export function ledgerCalls(store) {
  // Not `store.charges`: the flat stores kept their modules under those names too, privately.
  if (typeof store.createKey !== 'function') {
    return {
      newKey: () => store.keys.create(new Date()),
      fund: (passId, credits, note) => store.passes.fund(passId, credits, new Date(), note),
      authenticate: (print) => store.keys.authenticate(print),
      begin: (keyId, idemKey, hash) => store.idempotency.begin(keyId, idemKey, hash, new Date()),
      reserve: (caller, now) => store.charges.reserve({ caller, depth: 'standard', ip: '127.0.0.1' }, now),
      commit: (id, now, { reservedAt, ...settlement }) =>
        store.charges.commit(id, now, { ...settlement, sample: { reservedAt, channel: 'api', ms: 1 } }),
    };
  }
  // A build from before the split: one object with every method.
  const flat = store;
  const day = (now) => now.toISOString().slice(0, 10);
  return {
    newKey: () => flat.createKey(),
    fund: (passId, credits, note) => flat.fundPass(passId, credits, note),
    authenticate: (print) => flat.authenticate(print),
    begin: (keyId, idemKey, hash) => flat.beginIdempotent(keyId, idemKey, hash, new Date()),
    reserve: (caller, now) => flat.reserve({ caller, depth: 'standard', ip: '127.0.0.1', day: day(now) }, now),
    commit: (id, now, { reservedAt, ...settlement }) =>
      flat.commit(id, now, { ...settlement, sample: { day: day(reservedAt), channel: 'api', ms: 1 } }),
  };
}
