import { Command, Option } from 'commander';
import { runBridge } from '../mcp/bridge.js';
import { mcpEndpoint } from '../mcp/upstream.js';
import { DEFAULT_URL } from './config.js';
import { EXIT, fail } from './exit-codes.js';

interface McpFlags {
  url: string;
}

/**
 * `decide mcp`: the stdio bridge a desktop agent starts. The key comes only from
 * the environment (DECIDE_API_KEY), never from a flag that would show in `ps`.
 */
export function mcpCommand() {
  return new Command('mcp')
    .description('Serve the decide tools over stdio (MCP), forwarding to a decide server; key from DECIDE_API_KEY')
    .addOption(new Option('--url <url>', 'base URL of the decide server (or its /mcp endpoint)').env('DECIDE_URL').default(DEFAULT_URL))
    .action((flags: McpFlags) => {
      let url: URL;
      try {
        url = mcpEndpoint(flags.url);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not an http(s) URL');
      } catch (error) {
        fail(`DECIDE_URL / --url ${JSON.stringify(flags.url)} is not a usable URL: ${(error as Error).message}`, EXIT.config);
      }
      const key = process.env.DECIDE_API_KEY?.trim() || undefined;
      runBridge({ url, key, diagnose: (line) => process.stderr.write(`decide mcp: ${line}\n`) });
    });
}
