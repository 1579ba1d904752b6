import { Command } from 'commander';
import { runParsed } from './actions.js';
import { EXIT } from './exit-codes.js';
import { dbOption, MAX_FUNDING } from './options.js';

/**
 * Commands an operator runs on the server's machine, against its database. Only their
 * flags live here; the ledger's code (and its database drivers) loads when one runs.
 */

/** Runs one of operator-actions.ts's functions on the parsed flags, loading it first. */
const act =
  <F>(name: 'createKey' | 'createPass' | 'fundPass' | 'showPass') =>
  (_: unknown, command: Command) =>
    runParsed(EXIT, command, async (flags: F) => {
      const actions = await import('./operator-actions.js');
      await (actions[name] as (flags: F) => Promise<void>)(flags);
    });

export function operatorCommands(): Command[] {
  const key = new Command('key').description('API keys (operator)');
  key
    .command('create')
    .description('Create a key linked to a pass (a new pass when --pass is omitted); printed once, with the ledger it was written to')
    .option('--pass <id>', 'link the key to this pass')
    .option('--json', 'print { key, keyHint, passId }')
    .addOption(dbOption())
    .action(act('createKey'));

  const pass = new Command('pass').description('Passes and their credits (operator)');
  pass.command('create').description('Create an empty pass').option('--json', 'print { passId, createdAt }').addOption(dbOption()).action(act('createPass'));
  pass
    .command('fund')
    .description('Add credits to a pass (a ledger entry; balances are never edited in place)')
    .requiredOption('--pass <id>', 'the pass to fund')
    .requiredOption('--credits <n>', `credits to add, 1 to ${MAX_FUNDING} (digits only)`)
    .option('--json', 'print { passId, passCredits }')
    .addOption(dbOption())
    .action(act('fundPass'));
  pass
    .command('show')
    .description("A pass's balance and keys")
    .requiredOption('--pass <id>', 'the pass to show')
    .option('--json', 'print the pass as JSON')
    .addOption(dbOption())
    .action(act('showPass'));

  return [key, pass];
}
