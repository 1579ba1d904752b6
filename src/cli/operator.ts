import { Command } from 'commander';
import type { Store } from '../ledger/store.js';
import { EXIT, fail, Failure } from './exit-codes.js';
import { ledgerLimits, withStore } from './ledger-access.js';
import { dbOption, integer, MAX_FUNDING } from './options.js';

/** Opens the ledger `--db` names for `work`; every failure is a Failure raised after the store is closed. */
const onLedger = <T>(db: string, work: (store: Store) => Promise<T>): Promise<T> => withStore(db, ledgerLimits(), work);

/** A command's action whose Failures end the process with their sentence and code, and nothing else does. */
function reporting<A extends unknown[]>(action: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await action(...args);
    } catch (error) {
      if (error instanceof Failure) fail(error.message, error.exitCode);
      throw error;
    }
  };
}

const noPass = (passId: string) => new Failure(`no pass ${passId}`, EXIT.notFound);

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
    .action(
      reporting(async (flags: { pass?: string; json?: boolean; db: string }) => {
        const created = await onLedger(flags.db, async (store) => {
          if (flags.pass && !(await store.showPass(flags.pass))) throw noPass(flags.pass);
          return store.createKey(flags.pass);
        });
        if (flags.json) print({ key: created.key, keyHint: created.keyHint, passId: created.passId });
        else process.stdout.write(`${created.key}\n\nThis key is shown once: store it now. Hint ${created.keyHint}, pass ${created.passId}.\n`);
      }),
    );

  const pass = new Command('pass').description('Passes and their credits (operator)');
  pass
    .command('create')
    .description('Create an empty pass')
    .option('--json', 'print { passId, createdAt }')
    .addOption(dbOption())
    .action(
      reporting(async (flags: { json?: boolean; db: string }) => {
        const created = await onLedger(flags.db, (store) => store.createPass());
        if (flags.json) print(created);
        else process.stdout.write(`${created.passId}\n`);
      }),
    );
  pass
    .command('fund')
    .description('Add credits to a pass (a ledger entry; balances are never edited in place)')
    .requiredOption('--pass <id>', 'the pass to fund')
    .requiredOption('--credits <n>', `credits to add, 1 to ${MAX_FUNDING} (digits only)`, integer(1, MAX_FUNDING))
    .option('--json', 'print { passId, passCredits }')
    .addOption(dbOption())
    .action(
      reporting(async (flags: { pass: string; credits: number; json?: boolean; db: string }) => {
        const funded = await onLedger(flags.db, async (store) => {
          const pass = await store.showPass(flags.pass);
          if (!pass) throw noPass(flags.pass);
          if (pass.passCredits + flags.credits > Number.MAX_SAFE_INTEGER) {
            throw new Failure(
              `--credits ${flags.credits} would take pass ${flags.pass} (${pass.passCredits} credits) past ` +
                `${Number.MAX_SAFE_INTEGER}, the most a balance holds`,
              EXIT.usage,
            );
          }
          return store.fundPass(flags.pass, flags.credits, 'operator');
        });
        if (flags.json) print({ passId: flags.pass, passCredits: funded.passCredits });
        else process.stdout.write(`pass ${flags.pass} now holds ${funded.passCredits} credits\n`);
      }),
    );
  pass
    .command('show')
    .description("A pass's balance and keys")
    .requiredOption('--pass <id>', 'the pass to show')
    .option('--json', 'print the pass as JSON')
    .addOption(dbOption())
    .action(
      reporting(async (flags: { pass: string; json?: boolean; db: string }) => {
        const info = await onLedger(flags.db, (store) => store.showPass(flags.pass));
        if (!info) throw noPass(flags.pass);
        if (flags.json) return void print(info);
        const lines = [
          `pass ${info.passId}: ${info.passCredits} credits${info.fundedEver ? '' : ' (never funded)'}`,
          ...info.keys.map((k) => `  ${k.keyHint}  created ${k.createdAt}${k.revokedAt ? `  revoked ${k.revokedAt}` : ''}`),
        ];
        process.stdout.write(lines.join('\n') + '\n');
      }),
    );

  return [key, pass];
}
