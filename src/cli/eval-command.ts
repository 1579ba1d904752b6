import { Command, Option } from 'commander';
import { runParsed } from './actions.js';
import { CLIENT_EXIT, EVAL_EXIT_HELP } from './exit-codes.js';
import { examples, helpText } from './help-text.js';
import type { EvalFlags } from './eval.js';
import { dbOption, debiasOption, modelOption, threadsOption } from './options.js';

/**
 * `decide eval`: only its flags live here; the evaluation's code is imported when it
 * runs. Usage errors exit 2, as for the client commands, whose exit codes it shares.
 */
export function evalCommand(): Command {
  return new Command('eval')
    .description(
      'Measure the answers: run the engine over a labelled set and report accuracy, calibration, position bias and how well the context check spots missing facts',
    )
    .option('--set <file.jsonl>', 'the labelled set (default: the set shipped in the package, eval/decisions.jsonl)')
    .option('--limit <n>', 'only n items, a sample stratified by mode and by where the right answer stands')
    .addOption(
      new Option(
        '--half <half>',
        'only the items of one half of the set: methods are fitted on the even half and reported on the odd',
      ).choices(['even', 'odd']),
    )
    .option(
      '--target-accuracy <share>',
      'also find the lowest confidence cut-point whose covered answers are right this often (0.9 or 90%)',
    )
    .option(
      '--compare <reports...>',
      'compare two reports (A.json B.json, from --json or --out): which figures of B differ from A beyond noise; runs nothing',
    )
    .addOption(new Option('--concurrency <n>', 'decisions under way at once').default(4))
    .option('--json', 'print the report as one JSON object on stdout, nothing else')
    .option('--out <dir>', 'also write report.json and a reliability diagram per mode (SVG) into this folder')
    .addOption(modelOption())
    .addOption(threadsOption())
    .addOption(debiasOption())
    .addOption(
      new Option('--depth <depth>', "ask every decision at this depth: stress adds the checks, and the records keep each check's shift")
        .choices(['standard', 'stress'])
        .default('standard'),
    )
    .addOption(
      dbOption(
        'SQLite file or postgres:// URL of the ledger whose decide calibrate scalings are applied and which keeps a summary of the figures for decide serve; a file that does not exist is none',
      ),
    )
    .option('--url <url>', 'evaluate a running decide service instead of the engine configured here (costs decisions of the key)')
    .option('--key-file <path>', 'with --url: file holding the API key (default: the DECIDE_API_KEY variable)')
    .option('--yes', 'with --url: spend the decisions without asking (required when standard input is not a terminal)')
    .addHelpText(
      'after',
      helpText(
        examples(
          'decide eval --limit 60 --out eval-out',
          'decide eval --json > a.json; decide eval --json --debias none > b.json',
          'decide eval --compare a.json b.json',
        ),
        'Without --url the engine is the one `decide serve` would run, from the same flags and environment ' +
          '(DECIDE_ENGINE, DECIDE_MODEL, …), in this process, with the scalings its ledger (--db) holds; a summary of the ' +
          'figures (accuracy, log loss, ECE and their intervals) replaces the one that ledger kept for this engine, model and ' +
          'debiasing, and decide serve says it at start. Without a ledger file, nothing is applied or kept. Failed decisions are counted ' +
          'by code in the report; they end the run only with --url when the key is refused or its pass runs out.',
        ...EVAL_EXIT_HELP,
      ),
    )
    .action((_, command: Command) =>
      runParsed(CLIENT_EXIT, command, async (flags: EvalFlags) => (await import('./eval.js')).runEval(flags)),
    );
}
