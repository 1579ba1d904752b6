import { Command } from 'commander';
import { usageExits } from './actions.js';
import { commandsFor } from './commands.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { completionCommand } from './completion-command.js';
import { examples, helpText } from './help-text.js';
import { VERSION } from '../version.js';

/**
 * The `decide` command. Every command is defined by its flags alone; its code,
 * and the packages it needs (Hono, the database drivers, the MCP SDK, ink), load when
 * it runs, so `decide --help` or `decide usage` start about as fast as node itself.
 * Only the definitions this command line needs are loaded (commands.ts).
 */
const program = new Command('decide')
  .description('Structured decisions: probabilities, a signal and a context check, from a decision engine.')
  .version(VERSION);
usageExits(program, EXIT);

// Usage errors exit 64 or 2, by the command's family (exit-codes.ts).
for (const { command, scheme } of await commandsFor(process.argv[2])) program.addCommand(usageExits(command, scheme));
// Its script lists every command: commandsFor loads them all for a name it does not know, as "completion".
program.addCommand(usageExits(completionCommand(program), EXIT));
program.addHelpText(
  'after',
  helpText(
    examples('decide serve', 'decide ask "Should we ship on Friday?" --context @facts.txt', 'source <(decide completion bash)'),
    ...EXIT_CODES_HELP,
  ),
);

await program.parseAsync();
