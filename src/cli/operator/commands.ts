import { Argument, Command } from 'commander';
import { runParsed } from '../actions.js';
import { EXIT } from '../exit-codes.js';
import { examples, helpText } from '../help-text.js';
import { dbOption, MAX_FUNDING } from '../options.js';

/**
 * Commands an operator runs on the server's machine, against its ledger. Only their
 * flags live here; the ledger's code (and its database drivers) loads when one runs.
 * None makes a ledger that is not there, except `key create` and `pass create` told
 * `--create`: a command run in the wrong folder says where it looked instead.
 */

type Module = 'keys' | 'passes' | 'backup';

/** Runs a function of ./keys.ts, ./passes.ts or ./backup.ts on the parsed flags (and the command's argument, if any), loading it first. */
const act =
  (module: Module, name: string) =>
  (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    const positional = args.slice(0, -2);
    return runParsed(EXIT, command, async (flags: unknown) => {
      const loaded = (await import(`./${module}.js`)) as Record<string, (...a: unknown[]) => Promise<void>>;
      await loaded[name](...positional, flags);
    });
  };

/** A command's examples, after its options. */
const seeAlso = (...lines: string[]) => helpText(examples(...lines));

const createOption = () =>
  ['--create', 'make a new ledger if --db names none (else it is an error, so a run in the wrong folder leaves nothing behind)'] as const;

export function operatorCommands(): Command[] {
  const key = new Command('key')
    .description('API keys (operator)')
    .addHelpText('after', seeAlso('decide key create --name ci', 'decide key list'));
  key
    .command('create')
    .description('Create a key linked to a pass (a new pass when --pass is omitted); printed once, with the ledger it was written to')
    .option('--pass <id>', 'link the key to this pass')
    .option('--name <name>', 'what the key is for, shown by key list (1 to 100 characters)')
    .option(...createOption())
    .option('--json', 'print { key, keyHint, passId }')
    .addOption(dbOption())
    .addHelpText(
      'after',
      seeAlso('decide key create --name ci --create', 'decide key create --pass pass_… --name laptop --db /var/lib/decide/decide.db'),
    )
    .action(act('keys', 'createKey'));
  key
    .command('list')
    .description('Every key (or those of one pass): id, hint, name, pass, created, last used (to the minute), revoked')
    .option('--pass <id>', "only this pass's keys")
    .option('--json', 'print the keys as a JSON array')
    .addOption(dbOption())
    .addHelpText('after', seeAlso('decide key list', 'decide key list --pass pass_… --json'))
    .action(act('keys', 'listKeys'));
  key
    .command('revoke')
    .description(
      'Revoke a key by its id or its hint (as key list shows it, or its last four characters); at once, for every server on the ledger',
    )
    .addArgument(new Argument('<key>', 'key_… id, or hint dcd_api_…wxyz'))
    .option('--json', 'print { id, keyHint, revokedAt, alreadyRevoked }')
    .addOption(dbOption())
    .addHelpText('after', seeAlso('decide key revoke key_…', 'decide key revoke wxyz'))
    .action(act('keys', 'revokeKey'));

  const pass = new Command('pass')
    .description('Passes and their credits (operator)')
    .addHelpText('after', seeAlso('decide pass create', 'decide pass fund --pass pass_… --credits 100'));
  pass
    .command('create')
    .description('Create an empty pass')
    .option(...createOption())
    .option('--json', 'print { passId, createdAt }')
    .addOption(dbOption())
    .addHelpText('after', seeAlso('decide pass create --create', 'decide pass create --json --db postgres://decide@db/decide'))
    .action(act('passes', 'createPass'));
  pass
    .command('fund')
    .description('Add credits to a pass (a ledger entry; balances are never edited in place)')
    .requiredOption('--pass <id>', 'the pass to fund')
    .requiredOption('--credits <n>', `credits to add, 1 to ${MAX_FUNDING} (digits only)`)
    .option('--json', 'print { passId, passCredits }')
    .addOption(dbOption())
    .addHelpText('after', seeAlso('decide pass fund --pass pass_… --credits 100'))
    .action(act('passes', 'fundPass'));
  pass
    .command('show')
    .description("A pass's balance and keys")
    .requiredOption('--pass <id>', 'the pass to show')
    .option('--json', 'print the pass as JSON')
    .addOption(dbOption())
    .addHelpText('after', seeAlso('decide pass show --pass pass_…'))
    .action(act('passes', 'showPass'));
  pass
    .command('list')
    .description('Every pass: credits, keys (active of all), created')
    .option('--json', 'print the passes as a JSON array')
    .addOption(dbOption())
    .addHelpText('after', seeAlso('decide pass list', 'decide pass list --json'))
    .action(act('passes', 'listPasses'));

  const backup = new Command('backup')
    .description('Copy the SQLite ledger to FILE, consistently, while decide serve runs (PostgreSQL: use pg_dump)')
    .addArgument(new Argument('<file>', 'where the copy goes; replaced whole, only once the copy checks out'))
    .addOption(dbOption())
    .addHelpText('after', seeAlso('decide backup /backups/decide-$(date +%F).db --db /var/lib/decide/decide.db'))
    .action(act('backup', 'backup'));

  return [key, pass, backup];
}
