import type { KeyRecord } from '../../ledger/keys.js';
import { revokeByRef } from '../../ledger/revoke-ref.js';
import { EXIT, Failure } from '../exit-codes.js';
import { type LedgerFlags, ledgerName, noPass, onLedger, print, sayLedger, table, when } from './ledger.js';

/** What `key create`, `key list` and `key revoke` do, on the ledger `--db` names. */

export async function createKey(flags: LedgerFlags & { pass?: string; name?: string }): Promise<void> {
  const created = await onLedger(flags, async (store) => {
    if (flags.pass && !(await store.passes.show(flags.pass))) throw noPass(flags.pass, flags.db);
    return store.keys.create(new Date(), flags.pass, flags.name);
  });
  const where = `in the ledger ${ledgerName(flags.db)}`;
  if (flags.json) {
    print({ key: created.key, keyHint: created.keyHint, passId: created.passId });
    process.stderr.write(`decide: key ${created.keyHint} created ${where}\n`);
  } else {
    process.stdout.write(
      `${created.key}\n\nThis key is shown once: store it now. Hint ${created.keyHint}, pass ${created.passId}, ${where}.\n`,
    );
  }
}

/** The table `key list` prints, and `key revoke` when a hint is shared. */
const keyTable = (keys: KeyRecord[]) =>
  table(
    ['KEY', 'HINT', 'NAME', 'PASS', 'CREATED', 'LAST USED', 'REVOKED'],
    keys.map((k) => [k.id, k.keyHint, k.name ?? '', k.passId, when(k.createdAt), when(k.lastUsedAt), when(k.revokedAt)]),
  );

export async function listKeys(flags: LedgerFlags & { pass?: string }): Promise<void> {
  const keys = await onLedger(flags, async (store) => {
    if (flags.pass && !(await store.passes.show(flags.pass))) throw noPass(flags.pass, flags.db);
    return store.keys.list({ passId: flags.pass });
  });
  sayLedger(flags.db);
  if (flags.json) return void print(keys);
  process.stdout.write(keys.length === 0 ? 'no keys\n' : keyTable(keys));
}

export async function revokeKey(ref: string, flags: LedgerFlags): Promise<void> {
  const outcome = await onLedger(flags, (store) => revokeByRef(store, ref, new Date()));
  switch (outcome.kind) {
    case 'invalid':
      throw new Failure(
        `"${ref}" names no key: give its id (key_…) or its hint as key list shows it (dcd_api_…wxyz, or its last four characters)`,
        EXIT.usage,
      );
    case 'unknown':
      throw new Failure(`no key ${ref} in the ledger ${ledgerName(flags.db)}`, EXIT.notFound);
    case 'ambiguous':
      throw new Failure(`the hint ${ref} is shared by ${outcome.ids.length} keys (${outcome.ids.join(', ')}); revoke by id`, EXIT.usage);
  }
  const { key, revokedAt } = outcome;
  const already = outcome.kind === 'already';
  if (flags.json) print({ id: key.id, keyHint: key.keyHint, revokedAt, alreadyRevoked: already });
  else process.stdout.write(`key ${key.keyHint} (${key.id}) ${already ? 'was already revoked' : 'revoked'} at ${when(revokedAt)}\n`);
  sayLedger(flags.db);
}
