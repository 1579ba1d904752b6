import { Agent, request } from 'undici';
import { z } from 'zod';
import { Deadline } from './deadline.js';
import { EngineError, type Answer, type Engine, type EngineReply, type Question, type Questions } from './engine.js';
import { statusFailure, transportFailure, withoutKey } from './http-failures.js';
import { labelDistribution } from './labels.js';
import { answerFromLabels, renderQuestion } from './prompt.js';
import { withOneRateLimitRetry } from './retry.js';

export interface OpenAIEngineOptions {
  /** API root including the version segment, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Per `ask`, across its concurrent calls and any retry. Default 30000. */
  timeoutMs?: number;
  /** Connections kept to the provider; a stress decision makes ~15 calls at once. Default 64. */
  maxConnections?: number;
}

const PROVIDER = 'openai';

const topLogprob = z.object({ token: z.string(), logprob: z.number().max(1e-3) });
const completion = z.object({
  choices: z
    .array(
      z.object({
        logprobs: z
          .object({ content: z.array(z.object({ top_logprobs: z.array(topLogprob) })).nullish() })
          .nullish(),
      }),
    )
    .min(1),
});
const promptTokens = z.object({ usage: z.object({ prompt_tokens: z.number().int().nonnegative() }) });

/** Any OpenAI-compatible Chat Completions server, one single-token call per question. */
export function createOpenAIEngine(options: OpenAIEngineOptions): Engine {
  const { apiKey, model, timeoutMs = 30_000 } = options;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const agent = new Agent({
    connections: options.maxConnections ?? 64,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
  });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;

  async function post(payload: unknown, deadline: Deadline): Promise<unknown> {
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(payload),
        signal: deadline.signal,
        dispatcher: agent,
      });
    } catch (err) {
      throw deadline.expired ? deadline.failure() : transportFailure(PROVIDER, err);
    }
    const { statusCode } = response;
    if (statusCode < 200 || statusCode >= 300) {
      // Drain so the keep-alive connection is reusable; the body itself is never quoted.
      await response.body.dump().catch(() => undefined);
      throw statusFailure(PROVIDER, statusCode, response.headers['retry-after']);
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch (err) {
      throw deadline.expired ? deadline.failure() : transportFailure(PROVIDER, err, statusCode);
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new EngineError('bad_response', `${PROVIDER} engine answered with a body that is not JSON`);
    }
  }

  async function askOne(
    id: string,
    state: string,
    question: Question,
    deadline: Deadline,
  ): Promise<{ answer: Answer; inputTokens: number | null }> {
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
    const data = await withOneRateLimitRetry(() => post(payload, deadline), deadline);
    const parsed = completion.safeParse(data);
    if (!parsed.success) {
      throw new EngineError('bad_response', `${PROVIDER} engine's answer to "${id}" is not a chat completion`);
    }
    const top = parsed.data.choices[0].logprobs?.content?.[0]?.top_logprobs;
    if (!top) {
      throw new EngineError('bad_response', `${PROVIDER} engine's answer to "${id}" carries no logprobs (does the server support top_logprobs?)`);
    }
    const probabilities = labelDistribution(top, prompt.labels, PROVIDER);
    const usage = promptTokens.safeParse(data);
    return {
      answer: answerFromLabels(question, prompt.labels, probabilities),
      inputTokens: usage.success ? usage.data.usage.prompt_tokens : null,
    };
  }

  return {
    name: PROVIDER,
    model,
    async ask<Q extends Questions>(state: string, questions: Q, signal: AbortSignal): Promise<EngineReply<Q>> {
      const deadline = new Deadline(signal, timeoutMs, PROVIDER);
      try {
        const replies = await Promise.all(
          Object.entries(questions).map(([id, question]) =>
            askOne(id, state, question, deadline).then(
              (reply) => [id, reply] as const,
              (err: unknown) => {
                // The first failure decides the reply; the other calls would only hold connections.
                const failure = deadline.expired ? deadline.failure() : err;
                deadline.cancel();
                throw failure;
              },
            ),
          ),
        );
        const tokens = replies.map(([, reply]) => reply.inputTokens);
        return {
          answers: Object.fromEntries(replies.map(([id, reply]) => [id, reply.answer])) as EngineReply<Q>['answers'],
          inputTokens: tokens.some((t) => t === null) ? null : tokens.reduce<number>((sum, t) => sum + (t ?? 0), 0),
        };
      } catch (err) {
        throw withoutKey(err, apiKey);
      } finally {
        deadline.dispose();
      }
    },
    async close() {
      // In-flight calls belong to decisions that are being abandoned; don't wait for them.
      await agent.destroy();
    },
  };
}
