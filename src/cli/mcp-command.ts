import { Command, Option } from 'commander';
import { DEFAULT_URL } from '../config/variables.js';
import { runParsed } from './actions.js';
import { EXIT } from './exit-codes.js';
import { examples, helpText } from './help-text.js';

/**
 * `decide mcp`: the stdio bridge a desktop agent starts. Only its flags live here; the
 * MCP SDK loads when it runs. The key comes only from the environment
 * (DECIDE_API_KEY), never from a flag that would show in `ps`.
 */
export function mcpCommand(): Command {
  return new Command('mcp')
    .description('Serve the decide tools over stdio (MCP), forwarding to a decide server; key from DECIDE_API_KEY')
    .addOption(new Option('--url <url>', 'base URL of the decide server (or its /mcp endpoint)').env('DECIDE_URL').default(DEFAULT_URL))
    .addHelpText('after', helpText(examples('DECIDE_API_KEY=dcd_api_… decide mcp --url https://decide.example.com')))
    .action((_, command: Command) => runParsed(EXIT, command, async (flags: { url: string }) => (await import('./mcp.js')).runMcp(flags)));
}
