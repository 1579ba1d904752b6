import {
  McpServer,
  type AuthInfo,
  type CallToolResult,
  type McpServerFactory,
  type RequestId,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ServiceError, DecisionRequest, describeIssues, IN_WORDS } from '../contract/index.js';
import { UNAUTHORIZED } from '../http/auth.js';
import type { LogLine } from '../http/access-log.js';
import type { DecisionService } from '../service/service.js';
import { MCP_PROTOCOL_VERSIONS, SERVER_INFO } from './protocol.js';
import { decisionText, errorResult, successResult, usageText } from './summary.js';
import { NoArguments, TOOL_DEPTH, TOOLS } from './tools.js';
import type { Caller } from '../contract/caller.js';

const INSTRUCTIONS = `Structured decisions: give a question, the facts and the options (or a yes/no question, or three levels) and get probabilities, a signal and how sufficient the facts were.
weigh_decision is the everyday tool; stress_test_decision checks whether the answer survives reversed options and each fact removed; get_usage tells what is left.`;

/** What the route learnt about a `tools/call` before the SDK saw it. */
export interface CallScope {
  caller: Caller;
  /** The client IP, as the HTTP API takes it (the free per-IP limit counts it). */
  ip: string;
  /** `performance.now()` when the request arrived, so processingMs covers parsing too. */
  startedAt?: number;
  /** Each `tools/call`'s arguments as sent, by request id (see `sentArguments`). */
  sentArguments?: ReadonlyMap<RequestId, unknown>;
  /** The HTTP request's id (http/request-id.ts), for the log and the engine; none over stdio. */
  requestId?: string;
}

/**
 * The SDK hands `authInfo` to tool handlers untouched. The token slot holds the
 * key's hint, not the key: nothing downstream needs the secret, and whatever the
 * SDK might echo or log then cannot leak it.
 */
export function authInfoFor(scope: CallScope): AuthInfo {
  return { token: scope.caller.keyHint, clientId: scope.caller.keyId, scopes: [], extra: { scope } };
}

function scopeOf(ctx: ServerContext): CallScope | undefined {
  return ctx.http?.authInfo?.extra?.scope as CallScope | undefined;
}

/** The arguments as the client sent them where the route kept them, else as the SDK parsed them. */
function argumentsOf(scope: CallScope, ctx: ServerContext, parsed: unknown): unknown {
  const sent = scope.sentArguments;
  return sent?.has(ctx.mcpReq.id) ? sent.get(ctx.mcpReq.id) : parsed;
}

/**
 * The tool arguments as the contract's DecisionRequest, with the depth the tool
 * stands for; a bad argument is the same `invalid_request` sentence, naming the
 * field, that `POST /v1/decisions` answers.
 */
export function decisionRequestFrom(args: unknown, depth: DecisionRequest['depth']): DecisionRequest {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new ServiceError('invalid_request', 'arguments: must be an object');
  }
  if (Object.hasOwn(args, 'depth')) {
    const other = depth === 'standard' ? 'stress_test_decision' : 'weigh_decision';
    throw new ServiceError('invalid_request', `depth: not allowed here; this tool runs at ${depth} depth (use ${other} for the other)`);
  }
  const parsed = DecisionRequest.safeParse({ ...args, depth }, IN_WORDS);
  if (!parsed.success) throw new ServiceError('invalid_request', describeIssues(parsed.error));
  return parsed.data;
}

/** `get_usage` takes no arguments: any key is refused by name, as its published schema says. */
function checkNoArguments(args: unknown): void {
  const parsed = NoArguments.safeParse(args ?? {}, IN_WORDS);
  if (!parsed.success) throw new ServiceError('invalid_request', describeIssues(parsed.error));
}

/**
 * A failed decision is a tool result (`isError`), never a protocol error: the
 * agent reads the sentence and can fix its arguments or tell the user. A bug is
 * logged and answered like the HTTP API's 500, without its stack.
 */
async function answering(log: LogLine, ctx: ServerContext, run: (scope: CallScope) => Promise<CallToolResult>) {
  const scope = scopeOf(ctx);
  // The route refuses tools/call without a valid key; this only guards a wiring mistake.
  if (!scope) return errorResult(new ServiceError('unauthorized', UNAUTHORIZED));
  try {
    return await run(scope);
  } catch (error) {
    if (error instanceof ServiceError) return errorResult(error);
    log(JSON.stringify({ level: 'error', path: '/mcp', request: scope.requestId, error: (error as Error)?.stack ?? String(error) }));
    return errorResult(new ServiceError('internal_error', 'internal error; the failure was logged'));
  }
}

/**
 * One factory for both eras and every request: a fresh McpServer per request (the
 * server is stateless), whose tools decide through the same service, ledger and
 * charge rules as the HTTP API; MCP decisions count as `api` in the metrics.
 */
export function toolServerFactory(service: DecisionService, log: LogLine): McpServerFactory {
  return () => {
    const server = new McpServer(SERVER_INFO, {
      supportedProtocolVersions: MCP_PROTOCOL_VERSIONS,
      // Stateless: the tool list never changes within a connection.
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
    });
    for (const name of ['weigh_decision', 'stress_test_decision'] as const) {
      server.registerTool(name, TOOLS[name], (args, ctx) =>
        answering(log, ctx, async (scope) => {
          const request = decisionRequestFrom(argumentsOf(scope, ctx, args), TOOL_DEPTH[name]);
          const answer = await service.decide(request, { ...scope, channel: 'api', door: 'mcp' });
          return successResult(answer.response, decisionText(answer.response), answer.json);
        }),
      );
    }
    server.registerTool('get_usage', TOOLS.get_usage, (args, ctx) =>
      answering(log, ctx, async (scope) => {
        checkNoArguments(argumentsOf(scope, ctx, args));
        const usage = await service.usage(scope.caller);
        return successResult(usage, usageText(usage));
      }),
    );
    return server;
  };
}
