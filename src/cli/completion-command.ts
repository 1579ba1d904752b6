import { Argument, Command } from 'commander';
import { runAction } from './actions.js';
import { EXIT } from './exit-codes.js';
import { examples, helpText } from './help-text.js';

/**
 * `decide completion bash|zsh|fish`. It needs the whole program, so main.ts defines it
 * with every command loaded (commands.ts loads them all for a name it does not know).
 */
export function completionCommand(program: Command): Command {
  return new Command('completion')
    .description('Print a completion script for bash, zsh or fish, written from the commands and options of this version')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      helpText(
        examples(
          'source <(decide completion bash)',
          'decide completion zsh > ~/.zfunc/_decide   # a folder of your $fpath',
          'decide completion fish > ~/.config/fish/completions/decide.fish',
        ),
      ),
    )
    .action((shell: 'bash' | 'zsh' | 'fish', _flags, command: Command) =>
      runAction(EXIT, command, async () => {
        const { completionScript } = await import('./completion.js');
        process.stdout.write(completionScript(program, shell));
      }),
    );
}
