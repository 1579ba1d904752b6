import { Command } from 'commander';
import { describeLocation, openStore } from '../ledger/open.js';
import type { Store } from '../ledger/store.js';
import { limitsFromEnv } from '../service/limits.js';
import { EXIT, fail } from './exit-codes.js';
import { dbOption, integer } from './options.js';

/** Opens the ledger, runs `work`, and always closes it again. */
async function withStore<T>(db: string, work: (store: Store) => Promise<T>): Promise<T> {
  let store: Store;
  try {
    store = await openStore(db, limitsFromEnv());
  } catch (error) {
    fail(`cannot open the database ${describeLocation(db)}: ${(error as Error).message}`, EXIT.unavailable);
  }
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

const print = (value: unknown): void => void process.stdout.write(JSON.stringify(value) + '\n');

/** Commands an operator runs on the server's machine, against its database. */
export function operatorCommands(): Command[] {
  const key = new Command('key').description('API keys (operator)');
  key
    .command('create')
    .description('Create a key linked to a pass (a new pass when --pass is omitted); printed once')
    .option('--pass <id>', 'link the key to this pass')
    .option('--json', 'print { key, keyHint, passId }')
    .addOption(dbOption())
    .action(async (flags: { pass?: string; json?: boolean; db: string }) => {
      const created = await withStore(flags.db, async (store) => {
        if (flags.pass && !(await store.showPass(flags.pass))) fail(`no pass ${flags.pass}`, EXIT.notFound);
        return store.createKey(flags.pass);
      });
      if (flags.json) print({ key: created.key, keyHint: created.keyHint, passId: created.passId });
      else process.stdout.write(`${created.key}\n\nThis key is shown once: store it now. Hint ${created.keyHint}, pass ${created.passId}.\n`);
    });

  const pass = new Command('pass').description('Passes and their credits (operator)');
  pass
    .command('create')
    .description('Create an empty pass')
    .option('--json', 'print { passId, createdAt }')
    .addOption(dbOption())
    .action(async (flags: { json?: boolean; db: string }) => {
      const created = await withStore(flags.db, (store) => store.createPass());
      if (flags.json) print(created);
      else process.stdout.write(`${created.passId}\n`);
    });
  pass
    .command('fund')
    .description('Add credits to a pass (a ledger entry; balances are never edited in place)')
    .requiredOption('--pass <id>', 'the pass to fund')
    .requiredOption('--credits <n>', 'credits to add', integer(1))
    .option('--json', 'print { passId, passCredits }')
    .addOption(dbOption())
    .action(async (flags: { pass: string; credits: number; json?: boolean; db: string }) => {
      const funded = await withStore(flags.db, async (store) => {
        if (!(await store.showPass(flags.pass))) fail(`no pass ${flags.pass}`, EXIT.notFound);
        return store.fundPass(flags.pass, flags.credits, 'operator');
      });
      if (flags.json) print({ passId: flags.pass, passCredits: funded.passCredits });
      else process.stdout.write(`pass ${flags.pass} now holds ${funded.passCredits} credits\n`);
    });
  pass
    .command('show')
    .description("A pass's balance and keys")
    .requiredOption('--pass <id>', 'the pass to show')
    .option('--json', 'print the pass as JSON')
    .addOption(dbOption())
    .action(async (flags: { pass: string; json?: boolean; db: string }) => {
      const info = await withStore(flags.db, (store) => store.showPass(flags.pass));
      if (!info) fail(`no pass ${flags.pass}`, EXIT.notFound);
      if (flags.json) return void print(info);
      const lines = [
        `pass ${info.passId}: ${info.passCredits} credits${info.fundedEver ? '' : ' (never funded)'}`,
        ...info.keys.map((k) => `  ${k.keyHint}  created ${k.createdAt}${k.revokedAt ? `  revoked ${k.revokedAt}` : ''}`),
      ];
      process.stdout.write(lines.join('\n') + '\n');
    });

  return [key, pass];
}
