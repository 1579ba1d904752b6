import path from 'node:path';
import { describeLocation, isPostgresUrl } from '../ledger/open.js';
import type { Store } from '../ledger/store.js';
import { EXIT, Failure } from './exit-codes.js';
import { ledgerLimits, withStore } from './ledger-access.js';

/**
 * What `key create`, `pass create`, `pass fund` and `pass show` do, on the ledger
 * `--db` names. Each failure is a Failure thrown once the store is closed.
 */

export interface LedgerFlags {
  db: string;
  json?: boolean;
}

const onLedger = <T>(db: string, work: (store: Store) => Promise<T>): Promise<T> => withStore(db, ledgerLimits(), work);

const noPass = (passId: string) => new Failure(`no pass ${passId}`, EXIT.notFound);

const print = (value: unknown): void => void process.stdout.write(JSON.stringify(value) + '\n');

/**
 * The ledger a key or pass was written to, as `decide serve --db` must name it to
 * see it: an absolute path, since `./decide.db` is relative to wherever each command ran.
 */
const ledgerName = (db: string): string => (isPostgresUrl(db) ? describeLocation(db) : path.resolve(db));

export async function createKey(flags: LedgerFlags & { pass?: string }): Promise<void> {
  const created = await onLedger(flags.db, async (store) => {
    if (flags.pass && !(await store.passes.show(flags.pass))) throw noPass(flags.pass);
    return store.keys.create(new Date(), flags.pass);
  });
  const where = `in the ledger ${ledgerName(flags.db)}`;
  if (flags.json) {
    print({ key: created.key, keyHint: created.keyHint, passId: created.passId });
    process.stderr.write(`decide: key ${created.keyHint} created ${where}\n`);
  } else {
    process.stdout.write(`${created.key}\n\nThis key is shown once: store it now. Hint ${created.keyHint}, pass ${created.passId}, ${where}.\n`);
  }
}

export async function createPass(flags: LedgerFlags): Promise<void> {
  const created = await onLedger(flags.db, (store) => store.passes.create(new Date()));
  if (flags.json) print(created);
  else process.stdout.write(`${created.passId}\n`);
  process.stderr.write(`decide: pass ${created.passId} created in the ledger ${ledgerName(flags.db)}\n`);
}

export async function fundPass(flags: LedgerFlags & { pass: string; credits: number }): Promise<void> {
  const funded = await onLedger(flags.db, async (store) => {
    const pass = await store.passes.show(flags.pass);
    if (!pass) throw noPass(flags.pass);
    if (pass.passCredits + flags.credits > Number.MAX_SAFE_INTEGER) {
      throw new Failure(
        `--credits ${flags.credits} would take pass ${flags.pass} (${pass.passCredits} credits) past ` +
          `${Number.MAX_SAFE_INTEGER}, the most a balance holds`,
        EXIT.usage,
      );
    }
    return store.passes.fund(flags.pass, flags.credits, new Date(), 'operator');
  });
  if (flags.json) print({ passId: flags.pass, passCredits: funded.passCredits });
  else process.stdout.write(`pass ${flags.pass} now holds ${funded.passCredits} credits\n`);
}

export async function showPass(flags: LedgerFlags & { pass: string }): Promise<void> {
  const info = await onLedger(flags.db, (store) => store.passes.show(flags.pass));
  if (!info) throw noPass(flags.pass);
  if (flags.json) return void print(info);
  const lines = [
    `pass ${info.passId}: ${info.passCredits} credits${info.fundedEver ? '' : ' (never funded)'}`,
    ...info.keys.map((k) => `  ${k.keyHint}  created ${k.createdAt}${k.revokedAt ? `  revoked ${k.revokedAt}` : ''}`),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}
