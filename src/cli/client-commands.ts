import { Command, Option } from 'commander';
import { MODES } from '../contract/modes.js';
import { runAction } from './actions.js';
import { CLIENT_EXIT, CLIENT_EXIT_HELP } from './exit-codes.js';
import { examples, helpText } from './help-text.js';

/**
 * The client commands: `ask`, `stress`, `usage`, `revoke`, talking to a running service
 * over HTTP. Only their flags live here; each action imports its module when it runs,
 * so `decide serve` and the operator commands never load the client or the UI.
 */

/** `--json` of every client command. */
const JSON_HELP = "print the API's JSON answer on stdout, nothing else; a failure as one JSON object { error, code, … }";

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `--url` and `--key-file`, shared by every client command. The key itself is never a flag. */
function connectionOptions(command: Command): Command {
  return command
    .option('--url <url>', 'service URL (default: DECIDE_URL, else http://127.0.0.1:8787)')
    .option('--key-file <path>', 'file holding the API key (default: the DECIDE_API_KEY variable)');
}

/** A client command, its help ending with examples and the client's exit codes (main.ts makes its usage errors exit 2). */
function clientCommand(name: string, ...lines: string[]): Command {
  return new Command(name).addHelpText('after', helpText(examples(...lines), ...CLIENT_EXIT_HELP));
}

/**
 * Fails the command when `--context` is missing. Commander checks required options
 * before arguments, so a bare `decide ask` would complain of --context first; checked
 * before the action, after the arguments, the question is named first, as it is typed.
 */
function requireContext(context: Option) {
  return (command: Command) => {
    if (command.getOptionValue(context.attributeName()) === undefined) command.error(`required option '${context.flags}' not specified`);
  };
}

function decisionCommand(name: string, depth: 'standard' | 'stress', description: string, lines: string[]): Command {
  const context = new Option('--context <text|@file|->', 'the facts: text, @file for a file, - for standard input');
  return connectionOptions(
    clientCommand(name, ...lines)
      .description(description)
      .argument('<question...>', 'the question (8 to 300 characters; quoting it is optional)')
      .addOption(context)
      .hook('preAction', requireContext(context))
      .option('--option <name>', 'an option of a choice; repeat 2 to 6 times', collect)
      .option('--level <name>', 'a level of a score; repeat exactly 3 times, low to high', collect)
      .addOption(
        new Option('--mode <mode>', 'force the mode (default: options → choice, levels → score, neither → noul, yes/no)').choices(MODES),
      )
      .addOption(
        new Option('--fail-on <signal>', 'yes/no only: exit 1 when the signal is "no" (no), or anything but "yes" (unclear)').choices([
          'no',
          'unclear',
        ]),
      )
      .option(
        '--idempotency-key <key>',
        'the Idempotency-Key sent with the decision (default: a new random one): the same key and the same question replay the first answer without a new charge',
      )
      .option('--json', JSON_HELP),
  ).action((words: string[], flags, command: Command) =>
    runAction(CLIENT_EXIT, command, async () => (await import('./ask.js')).runAsk(words, flags, depth)),
  );
}

export function clientCommands(): Command[] {
  const ask = decisionCommand('ask', 'standard', 'Ask for a decision: probabilities, a signal and a context check', [
    'decide ask "Which database should we adopt?" --context @facts.txt \\',
    '  --option PostgreSQL --option MongoDB',
    'git diff | decide ask "Is this change safe to ship?" --context - --fail-on no',
  ]);
  const stress = decisionCommand(
    'stress',
    'stress',
    'A stress-tested decision: re-asked with the order reversed and each fact left out; names the decisive fact (5 credits)',
    ['decide stress "Which database should we adopt?" --context @facts.txt \\', '  --option PostgreSQL --option MongoDB'],
  );
  const usage = connectionOptions(
    clientCommand('usage', 'decide usage', 'decide usage --json | jq .freeRemaining').description(
      "Today's free decisions left and the pass's credits",
    ),
  )
    .option('--json', JSON_HELP)
    .action((flags, command: Command) => runAction(CLIENT_EXIT, command, async () => (await import('./account.js')).runUsage(flags)));
  const revoke = connectionOptions(
    clientCommand('revoke', 'decide revoke', 'decide revoke --yes --key-file ~/.config/decide/key').description(
      'Revoke the API key in use (asks first on a terminal)',
    ),
  )
    .option('--yes', 'revoke without asking (required when standard input is not a terminal)')
    .option('--json', JSON_HELP)
    .action((flags, command: Command) => runAction(CLIENT_EXIT, command, async () => (await import('./account.js')).runRevoke(flags)));
  return [ask, stress, usage, revoke];
}
