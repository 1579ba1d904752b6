import { EXIT, Failure } from '../exit-codes.js';
import { type LedgerFlags, ledgerName, noPass, onLedger, print, sayLedger, table, when } from './ledger.js';

/** What `pass create`, `pass fund`, `pass show` and `pass list` do, on the ledger `--db` names. */

export async function createPass(flags: LedgerFlags): Promise<void> {
  const created = await onLedger(flags, (store) => store.passes.create(new Date()));
  if (flags.json) print(created);
  else process.stdout.write(`${created.passId}\n`);
  process.stderr.write(`decide: pass ${created.passId} created in the ledger ${ledgerName(flags.db)}\n`);
}

export async function fundPass(flags: LedgerFlags & { pass: string; credits: number }): Promise<void> {
  const funded = await onLedger(flags, async (store) => {
    const pass = await store.passes.show(flags.pass);
    if (!pass) throw noPass(flags.pass, flags.db);
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
  process.stderr.write(`decide: pass ${flags.pass} funded in the ledger ${ledgerName(flags.db)}\n`);
}

export async function showPass(flags: LedgerFlags & { pass: string }): Promise<void> {
  const info = await onLedger(flags, (store) => store.passes.show(flags.pass));
  if (!info) throw noPass(flags.pass, flags.db);
  sayLedger(flags.db);
  if (flags.json) return void print(info);
  const lines = [
    `pass ${info.passId}: ${info.passCredits} credits${info.fundedEver ? '' : ' (never funded)'}`,
    ...info.keys.map((k) => `  ${k.keyHint}  created ${when(k.createdAt)}${k.revokedAt ? `  revoked ${when(k.revokedAt)}` : ''}`),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

export async function listPasses(flags: LedgerFlags): Promise<void> {
  const passes = await onLedger(flags, (store) => store.passes.list());
  sayLedger(flags.db);
  if (flags.json) return void print(passes);
  if (passes.length === 0) return void process.stdout.write('no passes\n');
  process.stdout.write(
    table(
      ['PASS', 'CREDITS', 'KEYS', 'CREATED'],
      passes.map((p) => [
        p.passId,
        `${p.passCredits}${p.fundedEver ? '' : ' (never funded)'}`,
        `${p.activeKeys} of ${p.keys} active`,
        when(p.createdAt),
      ]),
    ),
  );
}
