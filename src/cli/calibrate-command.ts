import { Command, Option } from 'commander';
import { runAction } from './actions.js';
import { CALIBRATE_EXIT_HELP, CLIENT_EXIT } from './exit-codes.js';
import { helpText } from './help-text.js';
import { dbOption, debiasOption, integer, modelOption } from './options.js';

/** `decide calibrate`: only its flags live here; its code is imported when it runs. */
export function calibrateCommand(): Command {
  return new Command('calibrate')
    .description('Fit a temperature per mode to the engine decide serve would run, on a labelled set, and keep it in the ledger for serve to apply')
    .option('--set <file.jsonl>', 'the labelled set (default: the set shipped in the package)')
    .addOption(new Option('--limit <n>', 'only the first n items of the set').argParser(integer(1)))
    .addOption(new Option('--concurrency <n>', 'decisions under way at once').default(4).argParser(integer(1)))
    .addOption(dbOption())
    .addOption(modelOption())
    .addOption(debiasOption())
    .option('--show', 'list the temperatures the ledger holds')
    .option('--reset', 'remove the temperatures of the engine and model configured here')
    .option('--json', 'print the result as one JSON object')
    .addHelpText(
      'after',
      helpText(
        'The engine is configured as for decide serve (flags and DECIDE_* variables); fit with the --debias you ' +
          "serve with. Half the set's items (by id) fit a temperature per mode and for the sufficiency probe; the " +
          'other half shows the ECE before and after.',
        ...CALIBRATE_EXIT_HELP,
      ),
    )
    .action((flags) => runAction(CLIENT_EXIT, async () => (await import('./calibrate.js')).runCalibrate(flags)));
}
