import type { ProxySettings } from '../config/proxy.js';
import { shownUrl } from '../config/shown-url.js';
import type { Deadline } from './deadline.js';
import { type Engine, EngineError, type Question } from './engine.js';
import { combineGroups, groupedPrompts, groupsOf } from './grouped.js';
import { labelDistribution, MOST_LOGPROB_LABELS } from './labels.js';
import { readLogprobs, readStatedProbabilities } from './openai-wire.js';
import { perQuestionEngine, type OneAnswer } from './per-question.js';
import { jsonPoster } from './post-json.js';
import { answerFromLabels, renderProbabilityQuestion, renderQuestion, type RenderedQuestion } from './prompt.js';
import { withOneRateLimitRetry } from './retry.js';
import { chatTokens } from './token-count.js';
import { probabilitySchema, statedDistribution, statedMaxTokens } from './verbalized.js';

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
  /**
   * The most labels one logprob reading offers (2 to 20, `top_logprobs`' limit); a
   * choice of more options is read in groups (grouped.ts). Default 20; a server that
   * returns fewer top logprobs needs fewer.
   */
  labelsPerReading?: number;
  /** The proxy its calls go through (config/proxy.ts); none when absent. */
  proxy?: ProxySettings;
}

const PROVIDER = 'openai';
/** Said with an unusable stated answer: which setting reads stated probabilities, and the alternative. */
const VERBALIZED_HINT = 'DECIDE_OPENAI_PROBABILITIES=verbalized has the model state probabilities; use logprobs if the server returns them';
const SCHEMA_NAME = 'label_probabilities';

/** Any OpenAI-compatible Chat Completions server, one call per question. */
export function createOpenAIEngine(options: OpenAIEngineOptions): Engine {
  const { apiKey, model, timeoutMs = 30_000, probabilities = 'logprobs', labelsPerReading = MOST_LOGPROB_LABELS } = options;
  if (!Number.isInteger(labelsPerReading) || labelsPerReading < 2 || labelsPerReading > 20) {
    throw new RangeError(`labelsPerReading must be a whole number from 2 to 20, got ${labelsPerReading}`);
  }
  const connections = options.maxConnections ?? 64;
  const root = options.baseUrl.replace(/\/+$/, '');
  const http = jsonPoster({
    url: `${root}/chat/completions`,
    proxy: options.proxy,
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    provider: PROVIDER,
    maxConnections: connections,
  });

  /**
   * One single-token call per question; the label distribution is read off the token's
   * top logprobs. A choice of more options than one reading can offer is read in
   * groups (grouped.ts): one call for the group, one per group for the option.
   */
  async function askByLogprobs(id: string, state: string, question: Question, deadline: Deadline): Promise<OneAnswer> {
    if (question.type !== 'choice' || question.criteria.length <= labelsPerReading) {
      const prompt = renderQuestion(state, question);
      const { p, labelMass, inputTokens } = await readLabels(id, prompt, deadline);
      return { answer: { ...answerFromLabels(question, prompt.labels, p), labelMass }, inputTokens };
    }
    if (question.criteria.length > labelsPerReading ** 2) {
      // Only a server configured for fewer top logprobs gets here: the default reads 400.
      throw new EngineError(
        'bad_response',
        `${PROVIDER} engine reads at most ${labelsPerReading ** 2} options with ${labelsPerReading} labels a reading; "${id}" has ${question.criteria.length}`,
      );
    }
    const groups = groupsOf(question.criteria.length, labelsPerReading);
    const readings = await Promise.all(groupedPrompts(state, question, groups).map((prompt) => readLabels(id, prompt, deadline)));
    const [ofGroup, ...within] = readings.map((r) => r.p);
    return {
      answer: {
        ...answerFromLabels(question, [], combineGroups(groups, ofGroup, within)),
        labelMass: Math.min(...readings.map((r) => r.labelMass)),
      },
      inputTokens: readings.reduce((sum, r) => sum + r.inputTokens, 0),
    };
  }

  /** One prompt's label distribution, from the first answer token's top logprobs. */
  async function readLabels(
    id: string,
    prompt: RenderedQuestion,
    deadline: Deadline,
  ): Promise<{ p: number[]; labelMass: number; inputTokens: number }> {
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
    return { ...labelDistribution(top, prompt.labels, PROVIDER), inputTokens: inputTokens ?? (await chatTokens(payload.messages)) };
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
      max_tokens: statedMaxTokens(prompt.labels.length),
      temperature: 0,
      response_format: {
        type: 'json_schema',
        json_schema: { name: SCHEMA_NAME, strict: true, schema: probabilitySchema(prompt.labels) },
      },
    };
    const data = await withOneRateLimitRetry(() => http.post(payload, deadline), deadline);
    const { stated, inputTokens } = readStatedProbabilities(data, PROVIDER, id);
    const distribution = statedDistribution(stated, prompt.labels, PROVIDER, id, VERBALIZED_HINT);
    // The schema is not counted: servers differ on whether the model is shown it or it only steers decoding.
    return {
      answer: answerFromLabels(question, prompt.labels, distribution),
      inputTokens: inputTokens ?? (await chatTokens(payload.messages)),
    };
  }

  const askOne = probabilities === 'verbalized' ? askByStatement : askByLogprobs;

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
    // Every OpenAI-compatible server lists its models at {base}/models.
    probe: (signal) => http.probe(`${root}/models`, signal),
  });
}
