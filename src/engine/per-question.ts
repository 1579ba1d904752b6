import { Deadline } from './deadline.js';
import type { Answer, Engine, EngineReply, Question, Questions } from './engine.js';
import { withoutKey } from './http-failures.js';

export type OneAnswer = { answer: Answer; inputTokens: number };

/**
 * For providers that answer one question per call (openai, anthropic): every question
 * of the state asked concurrently under one deadline. The first failure decides the
 * reply and cancels the other calls, which would only hold connections. Tokens are
 * summed over the calls.
 */
export async function askEachQuestion<Q extends Questions>(
  questions: Q,
  deadline: Deadline,
  askOne: (id: string, question: Question) => Promise<OneAnswer>,
): Promise<EngineReply<Q>> {
  const replies = await Promise.all(
    Object.entries(questions).map(([id, question]) =>
      askOne(id, question).then(
        (reply) => [id, reply] as const,
        (err: unknown) => {
          const failure = deadline.expired ? deadline.failure() : err;
          deadline.cancel();
          throw failure;
        },
      ),
    ),
  );
  return {
    answers: Object.fromEntries(replies.map(([id, reply]) => [id, reply.answer])) as EngineReply<Q>['answers'],
    inputTokens: replies.reduce((sum, [, reply]) => sum + reply.inputTokens, 0),
  };
}

/**
 * An engine of one call per question: each ask gets its own deadline (the decision's
 * signal and the engine's timeout), and no failure leaves it carrying the API key.
 */
export function perQuestionEngine(options: {
  name: string;
  model: string;
  /** The pool's connections to the provider (Engine.connections). */
  connections?: number;
  timeoutMs: number;
  apiKey: string | undefined;
  askOne: (id: string, state: string, question: Question, deadline: Deadline) => Promise<OneAnswer>;
  close: () => Promise<void>;
  endpoint: string;
  probe: (signal: AbortSignal) => Promise<void>;
}): Engine {
  const { name, model, timeoutMs, apiKey, askOne, close, endpoint, probe } = options;
  return {
    name,
    model,
    ...(options.connections === undefined ? {} : { connections: options.connections }),
    endpoint,
    probe: async (signal) => {
      try {
        await probe(signal);
      } catch (err) {
        throw withoutKey(err, apiKey);
      }
    },
    async ask<Q extends Questions>(state: string, questions: Q, signal: AbortSignal): Promise<EngineReply<Q>> {
      const deadline = new Deadline(signal, timeoutMs, name);
      try {
        return await askEachQuestion(questions, deadline, (id, question) => askOne(id, state, question, deadline));
      } catch (err) {
        throw withoutKey(err, apiKey);
      } finally {
        deadline.dispose();
      }
    },
    close,
  };
}
