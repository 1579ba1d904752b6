import { Command, Option } from 'commander';
import { DEFAULT_HOST, DEFAULT_PORT } from '../config/variables.js';
import { runParsed } from './actions.js';
import { EXIT } from './exit-codes.js';
import { examples, helpText } from './help-text.js';
import type { ServeFlags } from './serve.js';
import { dbOption, debiasOption, modelOption, threadsOption } from './options.js';

/** `decide serve`: only its flags live here; the server (Hono, the ledger's drivers, the engine) loads when it runs. */
export function serveCommand(): Command {
  return new Command('serve')
    .description('Start the HTTP API, the MCP tool server (/mcp) and the browser pages on one machine')
    .addOption(new Option('--port <n>', 'port to listen on (0 = any free port)').env('DECIDE_PORT').default(DEFAULT_PORT))
    .addOption(new Option('--host <addr>', 'address to bind').env('DECIDE_HOST').default(DEFAULT_HOST))
    .addOption(dbOption())
    .addOption(modelOption())
    .addOption(threadsOption())
    .addOption(debiasOption())
    .option('--check-engine', 'exit (69) when a remote engine does not answer its models list at start, rather than warn and serve')
    .addHelpText(
      'after',
      helpText(
        examples('decide serve --db decide.db', 'DECIDE_ENGINE=openai OPENAI_API_KEY=sk-… decide serve --check-engine'),
        'Engine: DECIDE_ENGINE=local (the default: --model, else a small model fetched once into your cache), ' +
          'openai, systemone or anthropic; see docs/configuration.md.',
      ),
    )
    .action((_, command: Command) => runParsed(EXIT, command, async (flags: ServeFlags) => (await import('./serve.js')).serve(flags)));
}
