import { Command } from 'commander';
import { usageExits } from './actions.js';
import { calibrateCommand } from './calibrate-command.js';
import { clientCommands } from './client-commands.js';
import { evalCommand } from './eval-command.js';
import { CLIENT_EXIT, EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { helpText } from './help-text.js';
import { mcpCommand } from './mcp-command.js';
import { operatorCommands } from './operator.js';
import { serveCommand } from './serve-command.js';

/**
 * The `decide` command. Every command is defined here by its flags alone; its code,
 * and the packages it needs (Hono, the database drivers, the MCP SDK, ink), load when
 * it runs, so `decide --help` or `decide usage` start about as fast as node itself.
 */
const program = new Command('decide')
  .description('Structured decisions: probabilities, a signal and a context check, from a decision engine.')
  .version('0.1.0');
usageExits(program, EXIT);

// serve, mcp and the operator commands exit with sysexits codes, the client commands,
// eval and calibrate with the client's (exit-codes.ts): usage errors exit 64 or 2.
for (const command of [serveCommand(), mcpCommand(), ...operatorCommands()]) program.addCommand(usageExits(command, EXIT));
for (const command of [...clientCommands(), evalCommand(), calibrateCommand()]) program.addCommand(usageExits(command, CLIENT_EXIT));
program.addHelpText('after', helpText(...EXIT_CODES_HELP));

await program.parseAsync();
