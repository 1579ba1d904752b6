import type { ProxySettings } from '../config/proxy.js';
import { shownUrl } from '../config/shown-url.js';
import { hasOrder, stringifyInOrder } from '../json/key-order.js';
import { Deadline } from './deadline.js';
import type { AskContext, Engine, EngineReply, Question, Questions } from './engine.js';
import { withoutKey } from './http-failures.js';
import { jsonPoster } from './post-json.js';
import { withOneRateLimitRetry } from './retry.js';
import { readReply, toWireQuestions } from './systemone-wire.js';
import { textTokens } from './token-count.js';

export interface SystemOneEngineOptions {
  /** Server root; requests go to `{baseUrl}/v1/systemone`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Per `ask`, including a retry after 429. Default 30000. */
  timeoutMs?: number;
  /** Connections kept to the server. Default 32. */
  maxConnections?: number;
  /** The proxy its calls go through (config/proxy.ts); none when absent. */
  proxy?: ProxySettings;
}

const PROVIDER = 'systemone';

/**
 * Any `POST /v1/systemone` server: one call answers every question of a state. The
 * request is the one the TypeSafe SDK sends (`{ model, state, questions }`, JSON, a
 * Bearer key when there is one), posted with undici's `request` on a keep-alive pool,
 * as the other HTTP engines do (post-json.ts). The SDK itself is not on this path: a
 * fresh client per attempt, fetch's web streams and a cloned, tee'd response cost
 * ~13 % of a decision's CPU, and its retries could not see the decision's deadline
 * anyway; 429s get `withOneRateLimitRetry`, like every engine.
 */
export function createSystemOneEngine(options: SystemOneEngineOptions): Engine {
  const { apiKey, model, timeoutMs = 30_000 } = options;
  /** Payloads with option names a plain JSON.stringify would reorder; the rest take the faster native one. */
  const ordered = new WeakSet<object>();
  const root = options.baseUrl.replace(/\/+$/, '');
  const http = jsonPoster({
    url: `${root}/v1/systemone`,
    proxy: options.proxy,
    // Servers that need no key (a local vLLM) get no Authorization header at all.
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    provider: PROVIDER,
    maxConnections: options.maxConnections ?? 32,
    // Choice options are written in presentation order, integer-like names too (systemone-wire.ts).
    serialize: (payload) => (ordered.has(payload as object) ? stringifyInOrder(payload) : JSON.stringify(payload)),
  });

  return {
    name: PROVIDER,
    model,
    connections: options.maxConnections ?? 32,
    // For the start line and /metrics: a password or a token in the URL is not for them.
    endpoint: shownUrl(root),
    // The format's own cheap call: GET /v1/models, with the key.
    probe: (signal) => http.probe(`${root}/v1/models`, signal),
    async ask<Q extends Questions>(state: string, questions: Q, signal: AbortSignal, call?: AskContext): Promise<EngineReply<Q>> {
      // An empty question set is refused by servers; nothing asked is nothing spent.
      if (Object.keys(questions).length === 0) return { answers: {} as EngineReply<Q>['answers'], inputTokens: 0 };
      const deadline = new Deadline(signal, timeoutMs, PROVIDER);
      const wire = toWireQuestions(questions);
      const payload = { model, state, questions: wire };
      if (hasOrder(wire) || Object.values(wire).some((q) => typeof q.criteria === 'object' && q.criteria !== null && hasOrder(q.criteria)))
        ordered.add(payload);
      try {
        const headers = call?.requestId === undefined ? undefined : { 'x-request-id': call.requestId };
        const data = await withOneRateLimitRetry(() => http.post(payload, deadline, headers), deadline);
        const { answers, inputTokens } = readReply(questions, data);
        return { answers, inputTokens: inputTokens ?? (await textTokens(sentTexts(state, questions))) };
      } catch (err) {
        throw withoutKey(err, apiKey);
      } finally {
        deadline.dispose();
      }
    },
    close: () => http.close(),
  };
}

/**
 * What a call gives the server to read, counted when the server reports no tokens:
 * the state, and each question's instructions and criteria texts (option names and
 * descriptions, levels, the yes/no sides' texts). The prompt the server builds around
 * them is its own, so their count is the least it read.
 */
function sentTexts(state: string, questions: Questions): string[] {
  return [state, ...Object.values(questions).flatMap(questionTexts)];
}

function questionTexts(question: Question): string[] {
  switch (question.type) {
    case 'choice':
      return [question.instructions, ...question.criteria.flatMap((o) => (o.description === null ? [o.label] : [o.label, o.description]))];
    case 'score':
      return [question.instructions, ...question.criteria];
    case 'noul':
      return [question.instructions, ...Object.values(question.criteria ?? {}).filter((text): text is string => typeof text === 'string')];
  }
}
