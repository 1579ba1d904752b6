import {
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { contextStorage, tryGetContext } from 'hono/context-storage';
import type { ErrorCode } from '../contract/index.js';
import type { LogLine } from '../http/access-log.js';
import { bearerCaller, UNAUTHORIZED } from '../http/auth.js';
import type { AppEnv } from '../http/env.js';
import { limitBody, MAX_BODY_BYTES } from '../http/json-body.js';
import type { DecisionService } from '../service/service.js';
import { idOf, initializeParamsProblem, sentArguments } from './inbound.js';
import { rebindingRefusal } from './origin.js';
import { authInfoFor, toolServerFactory } from './server.js';

/**
 * `POST /mcp`: the remote tool server. Streamable HTTP, stateless, JSON responses,
 * both protocol eras from one McpServer factory:
 *
 * - 2026-07-28 (a protocol version in each request's `_meta`): the SDK's
 *   `createMcpHandler` in strict modern mode, answering JSON;
 * - 2025-era (what `isLegacyRequest` classifies so, `initialize` first): a fresh
 *   stateless streamable HTTP transport with JSON responses. The SDK's own legacy
 *   fallback would answer with SSE; the spec asks for JSON in both eras.
 *
 * Before the SDK sees a request, this route checks what the SDK leaves to its
 * host: Host/Origin (DNS rebinding), the body limit of `/v1`, the media type, and
 * the key of a `tools/call` (parsing the body once and handing it on, with each
 * call's arguments as sent); and `initialize` params, which the SDK would answer
 * with -32603 and a raw list of issues.
 */

export interface McpRouteOptions {
  service: DecisionService;
  trustProxy: boolean;
  publicUrl?: string | null;
  log: LogLine;
}

/** The JSON-RPC error codes this route answers with; -32001 (server error range) is a refused key. */
const RPC = { parse: -32700, invalidParams: -32602, server: -32000, unauthorized: -32001 } as const;

type RpcId = string | number | null;

/** A JSON-RPC error body; `data` carries the contract's `{ error, code }` where one applies. */
function rpcError(
  c: Context,
  status: number,
  code: number,
  message: string,
  options: { id?: RpcId; contractCode?: ErrorCode; headers?: Record<string, string> } = {},
): Response {
  const data = options.contractCode ? { data: { error: message, code: options.contractCode, requestId: c.get('requestId') } } : {};
  return c.json({ jsonrpc: '2.0', error: { code, message, ...data }, id: options.id ?? null }, status as 400, options.headers);
}

function messagesOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : [body];
}

/** Only `tools/call` needs a key (docs/api.md, "Tool server"); a 2025-03-26 batch needs one if any member calls a tool. */
function callsTool(body: unknown): boolean {
  return messagesOf(body).some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'tools/call');
}

/**
 * The SDK warns once per handler that `responseMode: 'json'` drops mid-call
 * notifications. These tools send none, so on the operator's stderr the warning
 * would only be noise; this drops exactly that line, during construction only.
 */
function withoutJsonModeWarning<T>(make: () => T): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith("responseMode: 'json'")) return;
    warn(...args);
  };
  try {
    return make();
  } finally {
    console.warn = warn;
  }
}

/** One 2025-era exchange: a fresh server and stateless transport, closed once the JSON answer is ready. */
async function serveLegacy(factory: McpServerFactory, request: Request, parsedBody: unknown, authInfo?: AuthInfo) {
  const server = await factory({ era: 'legacy', requestInfo: request, ...(authInfo ? { authInfo } : {}) });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody, ...(authInfo ? { authInfo } : {}) });
  } finally {
    void transport.close().catch(() => {});
    void server.close().catch(() => {});
  }
}

export function mcpRoutes(options: McpRouteOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { service, trustProxy, log } = options;
  const publicUrl = options.publicUrl ?? null;
  const factory = toolServerFactory(service, log);
  const modern = withoutJsonModeWarning(() =>
    createMcpHandler(factory, {
      legacy: 'reject',
      responseMode: 'json',
      maxRequestBodySize: MAX_BODY_BYTES,
      // Rejections (unsupported versions, malformed envelopes) are answered to the
      // client; the log keeps one line each, without bodies or keys.
      // The SDK says nothing of the request: its id comes from the context stored below.
      onerror: (error) =>
        log(JSON.stringify({ level: 'warn', path: '/mcp', request: tryGetContext<AppEnv>()?.get('requestId'), error: error.message })),
    }),
  );

  const guard: MiddlewareHandler<AppEnv> = async (c, next) => {
    const refused = rebindingRefusal(c, trustProxy, publicUrl);
    if (refused) return rpcError(c, 403, RPC.server, `Forbidden: ${refused}`);
    await next();
  };
  const limit = limitBody<AppEnv>(MAX_BODY_BYTES, (c) =>
    rpcError(c, 413, RPC.server, 'the body is larger than 64 KiB', { contractCode: 'payload_too_large' }),
  );

  app.post('/mcp', contextStorage(), guard, limit, async (c) => {
    const type = c.req.header('content-type');
    if (!isJsonContentType(type)) {
      const shown = type ? `, not ${type.split(';')[0].trim()}` : '';
      return rpcError(c, 415, RPC.server, `Content-Type must be application/json${shown}`, { contractCode: 'unsupported_media_type' });
    }
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch (error) {
      return rpcError(c, 400, RPC.parse, `Parse error: the body is not valid JSON: ${(error as Error).message}`, {
        contractCode: 'invalid_json',
      });
    }

    let authInfo: AuthInfo | undefined;
    if (callsTool(body)) {
      const caller = await bearerCaller(service, c.req.header('authorization'));
      if (!caller) {
        return rpcError(c, 401, RPC.unauthorized, UNAUTHORIZED, {
          id: idOf(body),
          contractCode: 'unauthorized',
          headers: { 'WWW-Authenticate': 'Bearer' },
        });
      }
      c.set('caller', caller);
      const sent = sentArguments(messagesOf(body));
      authInfo = authInfoFor({
        caller,
        ip: c.get('clientIp'),
        startedAt: c.get('startedAt'),
        sentArguments: sent,
        requestId: c.get('requestId'),
      });
    }

    const request = c.req.raw;
    if (await isLegacyRequest(request, body, { maxRequestBodySize: MAX_BODY_BYTES })) {
      // A lone `initialize`; one inside a batch (which no revision allows) is left to the SDK.
      const problem = initializeParamsProblem(body);
      if (problem) return rpcError(c, 400, RPC.invalidParams, problem, { id: idOf(body) });
      return serveLegacy(factory, request, body, authInfo);
    }
    return modern.fetch(request, { parsedBody: body, ...(authInfo ? { authInfo } : {}) });
  });

  // Stateless: no SSE stream to open with GET, no session to end with DELETE.
  app.all('/mcp', (c) =>
    rpcError(c, 405, RPC.server, `${c.req.method} is not allowed on /mcp; use POST (a stateless server: no sessions, no SSE stream)`, {
      contractCode: 'method_not_allowed',
      headers: { Allow: 'POST' },
    }),
  );
  return app;
}
