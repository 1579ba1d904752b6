import { fnv1a, seededDistribution, startHttpFake, type CommonBehaviour, type Fake, type Handler } from './http-fake.js';

/**
 * A loopback Anthropic Messages API (`POST /v1/messages`) that answers the forced tool
 * call the anthropic engine makes, and fails with Anthropic's error JSON
 * (`{"type":"error","error":{"type":"overloaded_error","message":"…"}}`, the type
 * chosen by status as the real API does: 529 overloaded_error, 429 rate_limit_error, …).
 *
 * Default handler (deterministic): the tool input gets one weight per property of the
 * forced tool's `input_schema` (the labels the engine asked for), drawn in
 * [0.25, 1.25) by mulberry32(FNV-1a-32(JSON.stringify([system, messages]))) and scaled
 * to sum to 1. `defaultToolInput(body)` returns exactly that input.
 * `usage.input_tokens` defaults to ceil(characters of system + messages + tools JSON / 4).
 *
 * The prompt's text is the openai engine's (src/engine/prompt.ts), so the prompt
 * parsers of openai-fake.ts (`offeredOptions`, `byOptionText`, …) read these requests too.
 */

export interface AnthropicBehaviour extends CommonBehaviour {
  /** The tool input: label → probability (any keys, any values). */
  labels?: Record<string, number>;
  /** The tool input sent as is (wins over `labels`), for malformed inputs. */
  input?: unknown;
  /** The tool_use block's name; default the tool the request forced. */
  toolName?: string;
  /** The content blocks sent as is (wins over everything above), e.g. text only. */
  content?: unknown[];
  /** Default `tool_use`. */
  stopReason?: string;
  /** `usage.input_tokens`; null leaves `usage` out. */
  usage?: number | null;
  /** `error.type` of a scripted `status`; default by status. */
  errorType?: string;
}

export type AnthropicFake = Fake<AnthropicBehaviour>;

export function startAnthropicFake(handler?: Handler<AnthropicBehaviour>): Promise<AnthropicFake> {
  return startHttpFake<AnthropicBehaviour>({
    path: '/v1/messages',
    modelsPath: '/v1/models',
    basePath: '',
    defaultHandler: handler ?? (() => ({})),
    success: message,
    errorBody: (status, behaviour) => ({
      type: 'error',
      error: { type: behaviour.errorType ?? errorTypeOf(status), message: `scripted HTTP ${status}` },
    }),
  });
}

/** The error types of Anthropic's documented statuses. */
export function errorTypeOf(status: number): string {
  const types: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    529: 'overloaded_error',
  };
  return types[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

function message(behaviour: AnthropicBehaviour, body: any): unknown {
  const forced = typeof body?.tool_choice?.name === 'string' ? body.tool_choice.name : 'none';
  const input = behaviour.input !== undefined ? behaviour.input : (behaviour.labels ?? defaultToolInput(body));
  const content = behaviour.content ?? [
    { type: 'tool_use', id: `toolu_fake_${fnv1a(JSON.stringify(body))}`, name: behaviour.toolName ?? forced, input },
  ];
  const inputTokens = behaviour.usage === undefined ? defaultInputTokens(body) : behaviour.usage;
  return {
    id: `msg_fake_${fnv1a(JSON.stringify(body))}`,
    type: 'message',
    role: 'assistant',
    model: body?.model ?? 'fake',
    content,
    stop_reason: behaviour.stopReason ?? 'tool_use',
    stop_sequence: null,
    ...(inputTokens === null ? {} : { usage: { input_tokens: inputTokens, output_tokens: 20 } }),
  };
}

/** The labels the request's forced tool asks for: its input_schema's properties, in order. */
export function toolLabels(body: any): string[] {
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
  const tool = tools.find((t) => t?.name === body?.tool_choice?.name) ?? tools[0];
  return Object.keys(tool?.input_schema?.properties ?? {});
}

export function defaultToolInput(body: any): Record<string, number> {
  const labels = toolLabels(body);
  const shares = seededDistribution(fnv1a(JSON.stringify([body?.system ?? null, body?.messages ?? []])), labels.length);
  return Object.fromEntries(labels.map((label, i) => [label, shares[i]]));
}

export function defaultInputTokens(body: any): number {
  return Math.ceil(JSON.stringify([body?.system ?? null, body?.messages ?? [], body?.tools ?? []]).length / 4);
}
