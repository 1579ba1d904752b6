import type { ProxySettings } from '../config/proxy.js';
import { shownUrl } from '../config/shown-url.js';
import { z } from 'zod';
import { parseRetryAfter } from '../net/retry-after.js';
import type { Deadline } from './deadline.js';
import { EngineError, type Engine, type Question } from './engine.js';
import { RateLimited, statusFailure } from './http-failures.js';
import { perQuestionEngine, type OneAnswer } from './per-question.js';
import { jsonPoster } from './post-json.js';
import { answerFromLabels, renderProbabilityQuestion } from './prompt.js';
import { withOneRateLimitRetry } from './retry.js';
import { chatTokens } from './token-count.js';
import { probabilitySchema, statedDistribution, statedMaxTokens } from './verbalized.js';

export interface AnthropicEngineOptions {
  /** API root without the version segment, e.g. `https://api.anthropic.com`; requests go to `{baseUrl}/v1/messages`. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Per `ask`, across its concurrent calls and any retry. Default 30000. */
  timeoutMs?: number;
  /** Connections kept to the API; a stress decision makes ~15 calls at once. Default 64. */
  maxConnections?: number;
  /** The proxy its calls go through (config/proxy.ts); none when absent. */
  proxy?: ProxySettings;
}

const PROVIDER = 'anthropic';
export const ANTHROPIC_VERSION = '2023-06-01';
/** The tool every call forces; its input is the answer. */
export const PROBABILITY_TOOL = 'record_probabilities';

const toolUse = z.object({ type: z.literal('tool_use'), name: z.string(), input: z.unknown() });
const message = z.object({
  content: z.array(z.looseObject({ type: z.string() })),
  stop_reason: z.string().nullish(),
});
const inputTokens = z.object({ usage: z.object({ input_tokens: z.number().int().nonnegative() }) });
const errorJson = z.object({ type: z.literal('error'), error: z.object({ type: z.string().regex(/^[a-z_]{1,40}$/) }) });

/** Anthropic's "come back shortly" error types; 429 and 529 are their usual statuses. */
const BUSY_TYPES = new Set(['rate_limit_error', 'overloaded_error']);

/**
 * Anthropic's Messages API. It has no logprobs, so each question is one forced call of
 * a tool whose input holds one probability per label (verbalized.ts): up to 255 of
 * them, A…Z then AA…IU, with room in `max_tokens` for each.
 *
 * One call per question rather than all questions in one tool call: a stress decision
 * asks the main question and the same question with its options reversed in one
 * `ask`, and a model that saw both in one prompt would just copy its first answer,
 * which would hide the order bias the check exists to find; the sufficiency probe
 * likewise should not see the main question's options. It also keeps the prompt the
 * same as the openai engine's, and each answer's failure its own.
 */
export function createAnthropicEngine(options: AnthropicEngineOptions): Engine {
  const { apiKey, model, timeoutMs = 30_000 } = options;
  const connections = options.maxConnections ?? 64;
  const root = options.baseUrl.replace(/\/+$/, '');
  const http = jsonPoster({
    url: `${root}/v1/messages`,
    proxy: options.proxy,
    headers: { 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION },
    provider: PROVIDER,
    maxConnections: connections,
    classify: classifyStatus,
  });

  async function askOne(id: string, state: string, question: Question, deadline: Deadline): Promise<OneAnswer> {
    const prompt = renderProbabilityQuestion(state, question);
    const tool = {
      name: PROBABILITY_TOOL,
      description: 'Records the probability of each label being the right answer to the question.',
      input_schema: probabilitySchema(prompt.labels),
    };
    const payload = {
      model,
      max_tokens: statedMaxTokens(prompt.labels.length),
      temperature: 0,
      system: prompt.system,
      messages: [{ role: 'user', content: prompt.user }],
      tools: [tool],
      tool_choice: { type: 'tool', name: PROBABILITY_TOOL },
    };
    const data = await withOneRateLimitRetry(() => http.post(payload, deadline), deadline);
    const distribution = statedDistribution(toolInput(data, id), prompt.labels, PROVIDER, id);
    // Bookkeeping, not the answer: a malformed count is taken as none given. Without
    // one, the prompt is counted as sent: the API bills a tool's definition as input.
    const usage = inputTokens.safeParse(data);
    return {
      answer: answerFromLabels(question, prompt.labels, distribution),
      inputTokens: usage.success
        ? usage.data.usage.input_tokens
        : await chatTokens([{ role: 'system', content: prompt.system }, ...payload.messages], [JSON.stringify(tool)]),
    };
  }

  return perQuestionEngine({
    name: PROVIDER,
    model,
    connections,
    timeoutMs,
    apiKey,
    askOne,
    close: () => http.close(),
    // For the start line and /metrics: a password or a token in the URL is not for them.
    endpoint: shownUrl(root),
    // The Messages API's models list takes the same key and version header, and costs nothing.
    probe: (signal) => http.probe(`${root}/v1/models`, signal),
  });
}

/** The input of the forced tool call, or bad_response when the message is not one. */
function toolInput(data: unknown, id: string): unknown {
  const bad = (problem: string) => new EngineError('bad_response', `${PROVIDER} engine's answer to "${id}" ${problem}`);
  const parsed = message.safeParse(data);
  if (!parsed.success) throw bad('is not a Messages API message');
  // A tool input cut off at max_tokens may still parse, but it is not the whole answer.
  if (parsed.data.stop_reason === 'max_tokens') throw bad('was cut off at max_tokens before its probabilities were complete');
  const block = parsed.data.content.find((b) => b.type === 'tool_use');
  if (!block) {
    const why = parsed.data.stop_reason ?? 'none';
    throw bad(`has no tool call (stop_reason ${/^[a-z_]{1,40}$/.test(why) ? why : 'unrecognised'})`);
  }
  const call = toolUse.safeParse(block);
  if (!call.success) throw bad('has a malformed tool call');
  if (call.data.name !== PROBABILITY_TOOL) {
    throw bad(`calls a tool other than ${PROBABILITY_TOOL} (${JSON.stringify(call.data.name.slice(0, 40))})`);
  }
  return call.data.input;
}

/**
 * Anthropic's error JSON is `{"type":"error","error":{"type":"overloaded_error","message":"…"}}`.
 * Its type decides busy (529 overloaded and 429 rate limits, retried once like any
 * 429) and is named in the message; its `message` is never quoted, since providers
 * echo keys there. The status decides everything else, as for the other engines.
 */
export function classifyStatus(status: number, retryAfter: string | string[] | undefined, body: unknown): EngineError | RateLimited {
  const parsed = errorJson.safeParse(body);
  const type = parsed.success ? parsed.data.error.type : undefined;
  if (status === 429 || status === 529 || (type !== undefined && BUSY_TYPES.has(type))) {
    return new RateLimited(PROVIDER, parseRetryAfter(retryAfter), status);
  }
  const failure = statusFailure(PROVIDER, status, retryAfter);
  if (type === undefined || !(failure instanceof EngineError)) return failure;
  return new EngineError(failure.kind, `${failure.message} (${type})`, failure.retryAfter);
}
