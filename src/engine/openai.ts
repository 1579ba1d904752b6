import type { Deadline } from './deadline.js';
import type { Engine, Question } from './engine.js';
import { labelDistribution } from './labels.js';
import { readLogprobs, readStatedProbabilities } from './openai-wire.js';
import { perQuestionEngine, type OneAnswer } from './per-question.js';
import { jsonPoster } from './post-json.js';
import { answerFromLabels, renderProbabilityQuestion, renderQuestion } from './prompt.js';
import { withOneRateLimitRetry } from './retry.js';
import { probabilitySchema, statedDistribution } from './verbalized.js';

/**
 * Where the label probabilities come from: the first answer token's `top_logprobs`
 * (exact, one token per question), or probabilities the model states in a json_schema
 * answer, for servers that return no logprobs.
 */
export type OpenAIProbabilities = 'logprobs' | 'verbalized';

export interface OpenAIEngineOptions {
  /** API root including the version segment, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Default `logprobs`. */
  probabilities?: OpenAIProbabilities;
  /** Per `ask`, across its concurrent calls and any retry. Default 30000. */
  timeoutMs?: number;
  /** Connections kept to the provider; a stress decision makes ~15 calls at once. Default 64. */
  maxConnections?: number;
}

const PROVIDER = 'openai';
/** Said with an unusable stated answer: which setting reads stated probabilities, and the alternative. */
const VERBALIZED_HINT =
  'DECIDE_OPENAI_PROBABILITIES=verbalized has the model state probabilities; use logprobs if the server returns them';
/** Room for `{"A": 0.35, …}` over six labels with some white space, not for an essay. */
const STATED_MAX_TOKENS = 256;
const SCHEMA_NAME = 'label_probabilities';

/** Any OpenAI-compatible Chat Completions server, one call per question. */
export function createOpenAIEngine(options: OpenAIEngineOptions): Engine {
  const { apiKey, model, timeoutMs = 30_000, probabilities = 'logprobs' } = options;
  const http = jsonPoster({
    url: `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`,
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    provider: PROVIDER,
    maxConnections: options.maxConnections ?? 64,
  });

  /** One single-token call; the label distribution is read off the token's top logprobs. */
  async function askByLogprobs(id: string, state: string, question: Question, deadline: Deadline): Promise<OneAnswer> {
    const prompt = renderQuestion(state, question);
    const payload = {
      model,
      messages: [
        { role: 'system', content: prompt.system },
        { role: 'user', content: prompt.user },
      ],
      max_tokens: 1,
      temperature: 0,
      logprobs: true,
      top_logprobs: 20,
    };
    const data = await withOneRateLimitRetry(() => http.post(payload, deadline), deadline);
    const { top, inputTokens } = readLogprobs(data, PROVIDER, id);
    return { answer: answerFromLabels(question, prompt.labels, labelDistribution(top, prompt.labels, PROVIDER)), inputTokens };
  }

  /** One call whose answer must be a JSON object of one probability per label (strict json_schema). */
  async function askByStatement(id: string, state: string, question: Question, deadline: Deadline): Promise<OneAnswer> {
    const prompt = renderProbabilityQuestion(state, question);
    const payload = {
      model,
      messages: [
        { role: 'system', content: prompt.system },
        { role: 'user', content: prompt.user },
      ],
      max_tokens: STATED_MAX_TOKENS,
      temperature: 0,
      response_format: {
        type: 'json_schema',
        json_schema: { name: SCHEMA_NAME, strict: true, schema: probabilitySchema(prompt.labels) },
      },
    };
    const data = await withOneRateLimitRetry(() => http.post(payload, deadline), deadline);
    const { stated, inputTokens } = readStatedProbabilities(data, PROVIDER, id);
    const distribution = statedDistribution(stated, prompt.labels, PROVIDER, id, VERBALIZED_HINT);
    return { answer: answerFromLabels(question, prompt.labels, distribution), inputTokens };
  }

  const askOne = probabilities === 'verbalized' ? askByStatement : askByLogprobs;

  return perQuestionEngine({ name: PROVIDER, model, timeoutMs, apiKey, askOne, close: () => http.close() });
}
