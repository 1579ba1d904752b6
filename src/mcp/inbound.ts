import { specTypeSchemas, type RequestId } from '@modelcontextprotocol/server';

/**
 * What the entries (the `/mcp` route, the bridge's stdin) read in a JSON-RPC message
 * as the client sent it, before the SDK parses it into something else.
 */

type Raw = Record<string, unknown>;

function isObject(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The message's id when it has a usable one, else null (as JSON-RPC answers the unidentifiable). */
export function idOf(message: unknown): RequestId | null {
  const id = isObject(message) ? message.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * The `arguments` of each `tools/call` in `messages`, by request id, as sent. The
 * SDK reads `arguments` with a zod record, which leaves out an own `__proto__` key
 * (assigning it would set the prototype); the tools validate these instead, so the
 * contract sees the object `/v1` would have parsed and refuses that key by name.
 */
export function sentArguments(messages: unknown[]): Map<RequestId, unknown> {
  const sent = new Map<RequestId, unknown>();
  for (const message of messages) {
    const id = idOf(message);
    if (id !== null && isObject(message) && message.method === 'tools/call' && isObject(message.params)) {
      sent.set(id, message.params.arguments);
    }
  }
  return sent;
}

/**
 * Why an `initialize` request's params are unusable, as one sentence naming the
 * fields, or undefined. The SDK checks them with this same schema but answers a
 * failure as -32603 with the raw list of issues; the entries answer -32602 with
 * this sentence first.
 */
export function initializeParamsProblem(message: unknown): string | undefined {
  if (!isObject(message) || message.method !== 'initialize' || idOf(message) === null) return undefined;
  const { issues } = specTypeSchemas.InitializeRequestParams['~standard'].validate(message.params);
  if (!issues?.length) return undefined;
  const problems = issues.slice(0, 3).map((issue) => {
    const path = (issue.path ?? []).map((part) => String(typeof part === 'object' ? part.key : part));
    return `${['params', ...path].join('.')}: ${issue.message.replace(/^Invalid input: /, '')}`;
  });
  return `Invalid params for initialize: ${problems.join('; ')}`;
}
