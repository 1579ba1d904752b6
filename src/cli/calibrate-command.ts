import { Command, Option } from 'commander';
import { runParsed } from './actions.js';
import { CALIBRATE_EXIT_HELP, CLIENT_EXIT } from './exit-codes.js';
import { examples, helpText } from './help-text.js';
import type { CalibrateFlags } from './calibrate.js';
import { dbOption, debiasOption, modelOption, threadsOption } from './options.js';

/** `decide calibrate`: only its flags live here; its code is imported when it runs. */
export function calibrateCommand(): Command {
  return new Command('calibrate')
    .description(
      'Fit a scaling per mode (a temperature, with offsets for where an answer stands or for yes) to the engine decide serve would run, on a labelled set, and keep it in the ledger for serve to apply',
    )
    .option('--set <file.jsonl>', 'the labelled set (default: the set shipped in the package)')
    .option('--limit <n>', 'only n items, a sample stratified by mode and by where the right answer stands (as decide eval --limit)')
    .addOption(new Option('--concurrency <n>', 'decisions under way at once').default(4))
    .addOption(dbOption())
    .addOption(modelOption())
    .addOption(threadsOption())
    .addOption(debiasOption())
    .option('--show', 'list the scalings the ledger holds')
    .option('--reset', 'remove the scalings of the engine and model configured here')
    .option('--json', 'print the result as one JSON object')
    .addHelpText(
      'after',
      helpText(
        examples('decide calibrate --db decide.db --debias reverse', 'decide calibrate --show --db decide.db'),
        'The engine is configured as for decide serve (flags and DECIDE_* variables); fit with the --debias you ' +
          'serve with. The even half of the set fits, per mode and for the sufficiency probe, a temperature ' +
          'within [0.25, 8] and offsets within ±3 for the first and last places (choice, score) or for yes (yes/no, the probe); ' +
          'the odd half judges it. A fit is kept only when it lowers the held-out log loss beyond noise ' +
          '(its paired bootstrap interval wholly below 0); otherwise T = 1 and no offsets are kept. A target needs 20 readings in each half. ' +
          '--show and --reset start no engine: they read the engine and model from the configuration.',
        ...CALIBRATE_EXIT_HELP,
      ),
    )
    .action((_, command: Command) =>
      runParsed(CLIENT_EXIT, command, async (flags: CalibrateFlags) => (await import('./calibrate.js')).runCalibrate(flags)),
    );
}
