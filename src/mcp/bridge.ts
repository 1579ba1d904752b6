import { ProtocolError, Server, type CallToolResult, type RequestId } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { ProtocolError as RemoteProtocolError } from '@modelcontextprotocol/client';
import { isWellFormedKey, keyHint } from '../contract/index.js';
import { MCP_PROTOCOL_VERSIONS, SERVER_INFO } from './protocol.js';
import { GatedStdioTransport } from './stdio-gate.js';
import { listedTools } from './tools.js';
import { shownUrl } from '../config/shown-url.js';
import { BridgeError, Upstream } from './upstream.js';

/**
 * `decide mcp`: a stdio MCP server for desktop agents that forwards `tools/list`
 * and `tools/call` to a remote `/mcp` with the user's key. stdout carries the
 * protocol and nothing else; every diagnostic goes to stderr. What a user can fix
 * (no key, a refused key, no server) comes back as a tool error saying what to set,
 * never as a crash of the bridge.
 */

export interface BridgeOptions {
  /** The remote `/mcp` endpoint. */
  url: URL;
  /** The API key (DECIDE_API_KEY); tool calls need it, listing does not. */
  key: string | undefined;
  /** Where diagnostics go: one line each (stderr in the CLI). */
  diagnose: (line: string) => void;
}

const MISSING_KEY =
  'DECIDE_API_KEY is not set: tool calls need a decide API key. Create one with `decide key create` ' +
  "(or on the server's pass page) and set DECIDE_API_KEY in this MCP server's env.";

const MALFORMED_KEY =
  'DECIDE_API_KEY does not hold a well-formed decide key (dcd_api_ and 49 letters or digits, the last 6 a checksum): ' +
  'check it for a copy-paste slip, or create a new one with `decide key create`.';

/** What is wrong with the key before anything is sent, or null. */
function keyProblem(key: string | undefined): string | null {
  if (!key) return MISSING_KEY;
  return isWellFormedKey(key) ? null : MALFORMED_KEY;
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A JSON-RPC error of the remote server, answered to the local client as the same error. */
function passedOn(error: unknown): never {
  if (error instanceof RemoteProtocolError) throw new ProtocolError(error.code, error.message, error.data);
  throw error;
}

/**
 * The forwarding server; `serveStdio` may build one per era probe, all sharing
 * `upstream`. `sent` holds each call's arguments as sent (see `sentArguments`), so
 * the remote server judges the object the client wrote.
 */
export function bridgeServer(upstream: Upstream, options: BridgeOptions, sent?: ReadonlyMap<RequestId, unknown>): Server {
  const server = new Server(
    { ...SERVER_INFO, name: 'decide-mcp-bridge' },
    { capabilities: { tools: {} }, supportedProtocolVersions: MCP_PROTOCOL_VERSIONS },
  );

  server.setRequestHandler('tools/list', async () => {
    try {
      return { tools: await upstream.listTools() };
    } catch (error) {
      if (!(error instanceof BridgeError)) passedOn(error);
      // The agent still learns the tools; calling one then says what is wrong.
      options.diagnose(`${error.message} Listing the built-in tool definitions.`);
      return { tools: listedTools() };
    }
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const problem = keyProblem(options.key);
    if (problem) return toolError(problem);
    const args = sent?.has(ctx.mcpReq.id) ? sent.get(ctx.mcpReq.id) : request.params.arguments;
    try {
      const result = await upstream.callTool(request.params.name, args as Record<string, unknown> | undefined);
      // The remote `_meta` (its server info, cache hints) describes that hop, not this one.
      return {
        content: result.content,
        ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
        ...(result.isError ? { isError: true } : {}),
      };
    } catch (error) {
      if (!(error instanceof BridgeError)) passedOn(error);
      options.diagnose(error.message);
      return toolError(error.message);
    }
  });
  return server;
}

/** Serves stdin/stdout until stdin ends or a signal arrives, then closes the upstream client. */
export function runBridge(options: BridgeOptions): void {
  const upstream = new Upstream(options.url, options.key);
  const transport = new GatedStdioTransport();
  const handle = serveStdio(() => bridgeServer(upstream, options, transport.sentArguments), {
    transport,
    onerror: (error) => options.diagnose(`protocol error: ${error.message}`),
  });
  const problem = keyProblem(options.key);
  options.diagnose(`forwarding to ${shownUrl(options.url)} ${problem ? `(${problem})` : `with key ${keyHint(options.key!)}`}`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await handle.close().catch(() => {});
    await upstream.close();
    process.exit(0);
  };
  process.stdin.once('end', () => void stop());
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}
