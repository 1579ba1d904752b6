import { Command, Option } from 'commander';
import { CLIENT_EXIT } from './client-exit.js';
import { runAction } from './client-commands.js';
import { EXIT } from './exit-codes.js';
import { dbOption, debiasOption, integer, modelOption, threadsOption } from './options.js';

/** `decide calibrate`: only its flags live here; its code is imported when it runs. */
export function calibrateCommand(): Command {
  return new Command('calibrate')
    .description('Fit a temperature per mode to the engine decide serve would run, on a labelled set, and keep it in the ledger for serve to apply')
    .exitOverride((error) => process.exit(error.exitCode === 0 ? CLIENT_EXIT.ok : CLIENT_EXIT.usage))
    .option('--set <file.jsonl>', 'the labelled set (default: the set shipped in the package)')
    .addOption(new Option('--limit <n>', 'only the first n items of the set').argParser(integer(1)))
    .addOption(new Option('--concurrency <n>', 'decisions under way at once').default(4).argParser(integer(1)))
    .addOption(dbOption())
    .addOption(modelOption())
    .addOption(threadsOption())
    .addOption(debiasOption())
    .option('--show', 'list the temperatures the ledger holds')
    .option('--reset', 'remove the temperatures of the engine and model configured here')
    .option('--json', 'print the result as one JSON object')
    .addHelpText(
      'after',
      `
The engine is configured as for decide serve (flags and DECIDE_* variables); fit with
the --debias you serve with. Half the set's items (by id) fit a temperature per mode
and for the sufficiency probe; the other half shows the ECE before and after.

Exit codes: ${CLIENT_EXIT.ok} fitted (shown, reset); ${CLIENT_EXIT.usage} bad flags or a bad line of the set; ${CLIENT_EXIT.service} every reading failed;
${EXIT.dataErr}, ${EXIT.unavailable}, ${EXIT.ioErr} the ledger cannot be used; ${EXIT.notFound}, ${EXIT.config} the engine could not start.`,
    )
    .action((flags) => runAction(async () => (await import('./calibrate.js')).runCalibrate(flags)));
}
