import { Command } from 'commander';
import { operatorCommands } from './operator.js';
import { serveCommand } from './serve.js';

const program = new Command('decide')
  .description('Structured decisions: probabilities, a signal and a context check, from a decision engine.')
  .version('0.1.0');

program.addCommand(serveCommand());
for (const command of operatorCommands()) program.addCommand(command);

await program.parseAsync();
