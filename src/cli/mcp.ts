import { envValue } from '../config/variables.js';
import { runBridge } from '../mcp/bridge.js';
import { mcpEndpoint } from '../mcp/upstream.js';
import { EXIT, Failure } from './exit-codes.js';

/** Starts the stdio bridge to the server `flags.url` names; it runs until the agent closes its standard input. */
export async function runMcp(flags: { url: string }): Promise<void> {
  let url: URL;
  try {
    url = mcpEndpoint(flags.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not an http(s) URL');
  } catch (error) {
    throw new Failure(`DECIDE_URL / --url ${JSON.stringify(flags.url)} is not a usable URL: ${(error as Error).message}`, EXIT.config);
  }
  const key = envValue(process.env, 'DECIDE_API_KEY');
  runBridge({ url, key, diagnose: (line) => process.stderr.write(`decide mcp: ${line}\n`) });
}
