import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { request } from 'undici';

/**
 * The clients the MCP suites drive the real server with: the 2.x SDK client pinned
 * to the modern era (2026-07-28), the 1.x SDK client (2025-11-25, `initialize`),
 * and raw JSON-RPC over HTTP for what an SDK would not send.
 */

export const MODERN = '2026-07-28';

const authHeaders = (key?: string): Record<string, string> => (key ? { Authorization: `Bearer ${key}` } : {});

export async function modernClient(base: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'decide-test-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: authHeaders(key) } }));
  return client;
}

export async function legacyClient(base: string, key?: string): Promise<LegacyClient> {
  const client = new LegacyClient({ name: 'decide-test-legacy', version: '1.0.0' });
  await client.connect(new LegacyTransport(new URL('/mcp', base), { requestInit: { headers: authHeaders(key) } }));
  return client;
}

export interface RpcAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
  text: string;
}

export interface RpcOptions {
  key?: string;
  headers?: Record<string, string>;
  method?: string;
  /** Raw body instead of JSON.stringify(message). */
  raw?: string;
}

/** One raw POST to /mcp, with the Accept header streamable HTTP clients send. */
export async function rpc(base: string, message: unknown, options: RpcOptions = {}): Promise<RpcAnswer> {
  const res = await request(new URL('/mcp', base), {
    method: (options.method ?? 'POST') as 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...authHeaders(options.key),
      ...options.headers,
    },
    body: options.method && options.method !== 'POST' ? undefined : (options.raw ?? JSON.stringify(message)),
  });
  const text = await res.body.text();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, headers, body, text };
}

/** A 2025-era `initialize` at `version`. */
export function initialize(version: string, id: number | string = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
  };
}

/** A 2026-07-28 request: the revision in `_meta`, mirrored by the standard headers. */
export function modernRequest(method: string, params: Record<string, unknown> = {}, version = MODERN, id: number | string = 1) {
  return {
    message: {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': version,
          'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    },
    headers: {
      'mcp-protocol-version': version,
      'mcp-method': method,
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    },
  };
}

/** The first text block: the short human line. */
export function lineOf(result: unknown): string {
  const blocks = ((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>;
  return blocks.find((b) => b.type === 'text')?.text ?? '';
}
