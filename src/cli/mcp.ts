import { envValue } from '../config/variables.js';
import { runBridge } from '../mcp/bridge.js';
import { mcpEndpoint } from '../mcp/upstream.js';

/**
 * Starts the stdio bridge to the server `flags.url` names (already read as an http(s)
 * URL, flag-values.ts); it runs until the agent closes its standard input.
 */
export async function runMcp(flags: { url: string }): Promise<void> {
  const url = mcpEndpoint(flags.url);
  const key = envValue(process.env, 'DECIDE_API_KEY');
  runBridge({ url, key, diagnose: (line) => process.stderr.write(`decide mcp: ${line}\n`) });
}
