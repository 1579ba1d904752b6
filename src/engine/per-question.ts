import type { Deadline } from './deadline.js';
import type { Answer, EngineReply, Question, Questions } from './engine.js';

export type OneAnswer = { answer: Answer; inputTokens: number | null };

/**
 * For providers that answer one question per call (openai, anthropic): every question
 * of the state asked concurrently under one deadline. The first failure decides the
 * reply and cancels the other calls, which would only hold connections. Tokens are
 * summed, and unknown as soon as one call did not report them.
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
  const tokens = replies.map(([, reply]) => reply.inputTokens);
  return {
    answers: Object.fromEntries(replies.map(([id, reply]) => [id, reply.answer])) as EngineReply<Q>['answers'],
    inputTokens: tokens.some((t) => t === null) ? null : tokens.reduce<number>((sum, t) => sum + (t ?? 0), 0),
  };
}
