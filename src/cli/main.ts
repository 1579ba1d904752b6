import { Command } from 'commander';
import { clientCommands } from './client-commands.js';
import { EXIT_CODES_HELP } from './client-exit.js';
import { calibrateCommand } from './calibrate-command.js';
import { evalCommand } from './eval-command.js';
import { EXIT } from './exit-codes.js';
import { helpText } from './help-text.js';
import { mcpCommand } from './mcp.js';
import { operatorCommands } from './operator.js';
import { serveCommand } from './serve.js';

const program = new Command('decide')
  .description('Structured decisions: probabilities, a signal and a context check, from a decision engine.')
  .version('0.1.0');

program.addCommand(serveCommand());
program.addCommand(mcpCommand());
for (const command of operatorCommands()) program.addCommand(command);

/** Commander's own failures (unknown option, bad value, missing option) exit EXIT.usage, not 1. */
const usageExit = (command: Command): void => {
  command.exitOverride((error) => process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage));
  command.commands.forEach(usageExit);
};
usageExit(program);

// The client commands and eval are added after usageExit on purpose: they set their own exit
// override, so their usage errors exit 2 (client-exit.ts), not the operators' 64.
for (const command of clientCommands()) program.addCommand(command);
program.addCommand(evalCommand());
program.addCommand(calibrateCommand());
program.addHelpText('after', helpText(...EXIT_CODES_HELP));

await program.parseAsync();
