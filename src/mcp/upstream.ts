import {
  Client,
  ProtocolError as RemoteProtocolError,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/client';
import { serviceRoot } from '../client/base-url.js';
import { shownUrl, withoutUrlSecrets } from '../config/shown-url.js';
import { SERVER_INFO } from './protocol.js';

/**
 * The bridge's side of a remote `/mcp`: one SDK client over streamable HTTP,
 * connected on first use (the server may start after the bridge) and dropped
 * after a network failure so the next call connects afresh. Failures a user can
 * fix come out as `BridgeError` sentences that say what to set.
 */

export class BridgeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BridgeError';
  }
}

/**
 * `http://host:port` (or any path not ending in /mcp) means that server's `/mcp`; a
 * base URL ending in `/v1` means the same server, as it does for the client commands
 * (client/base-url.ts).
 */
export function mcpEndpoint(base: string): URL {
  const url = new URL(base);
  if (/\/mcp\/?$/.test(url.pathname)) return url;
  const root = serviceRoot(url);
  root.pathname = `${root.pathname.replace(/\/$/, '')}/mcp`;
  return root;
}

function httpStatusOf(error: unknown): number | undefined {
  const status = (error as { data?: { status?: unknown } } | null)?.data?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The socket's own words: fetch wraps ECONNREFUSED, ENOTFOUND, … a level or three down. */
function reasonOf(error: unknown): string {
  let deepest = error instanceof Error ? error.message : String(error);
  let cause: unknown = error;
  for (let depth = 0; depth < 6 && cause instanceof Error; depth++) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    deepest = cause.message;
    cause = cause.cause;
  }
  return deepest;
}

export class Upstream {
  private connecting: Promise<Client> | undefined;

  constructor(
    readonly url: URL,
    private readonly key: string | undefined,
  ) {}

  /** `text` with the URL's secrets (as written, or decoded) masked: fetch's own errors quote the URL whole. */
  private masked(text: string): string {
    return withoutUrlSecrets(text, this.url);
  }

  async listTools(): Promise<Tool[]> {
    return (await this.forward((client) => client.listTools())).tools;
  }

  async callTool(name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
    return (await this.forward((client) => client.callTool({ name, arguments: args }))) as CallToolResult;
  }

  async close(): Promise<void> {
    const connecting = this.connecting;
    this.connecting = undefined;
    await connecting?.then((client) => client.close()).catch(() => {});
  }

  private client(): Promise<Client> {
    this.connecting ??= this.connect().catch((error) => {
      this.connecting = undefined;
      throw error;
    });
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    // `auto`: server/discover first (2026-07-28), `initialize` against an older server.
    const client = new Client({ name: 'decide-mcp-bridge', version: SERVER_INFO.version }, { versionNegotiation: { mode: 'auto' } });
    const headers: Record<string, string> = this.key ? { Authorization: `Bearer ${this.key}` } : {};
    await client.connect(new StreamableHTTPClientTransport(this.url, { requestInit: { headers } }));
    return client;
  }

  /** Runs `call` on the connected client; a JSON-RPC error of the server is passed on as it is. */
  private async forward<T>(call: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await call(await this.client());
    } catch (error) {
      if (error instanceof RemoteProtocolError) throw error;
      const failure = this.explain(error);
      await this.close();
      throw failure;
    }
  }

  private explain(error: unknown): BridgeError {
    const status = httpStatusOf(error);
    const where = `the decide server at ${shownUrl(this.url)}`;
    if (status === 401 || (error as Error | null)?.name === 'UnauthorizedError') {
      return new BridgeError(
        `${where} refused the key (unauthorized): DECIDE_API_KEY is missing, unknown or revoked. ` +
          "Create a key with `decide key create` (or on the server's pass page) and set DECIDE_API_KEY in this MCP server's env.",
      );
    }
    if (status !== undefined) {
      return new BridgeError(
        `${where} answered HTTP ${status}, not as a decide tool server: check DECIDE_URL (the server's base URL, e.g. http://127.0.0.1:8787).`,
      );
    }
    return new BridgeError(
      `cannot reach ${where} (${this.masked(reasonOf(error))}): start it with \`decide serve\`, or set DECIDE_URL to where it runs.`,
    );
  }
}
