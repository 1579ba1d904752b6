import { z } from 'zod';
import { normalise } from './distribution.js';
import { orderedObject } from '../json/key-order.js';
import { EngineError, type Answer, type EngineReply, type Question, type Questions } from './engine.js';

/**
 * The `/v1/systemone` wire format: what we send, and the validation of what comes back.
 * A reply is only usable whole: every question answered, with its own type, and a
 * distribution over exactly the labels it offered.
 */

export type WireQuestion = { type: Question['type']; instructions: string; criteria?: unknown };

/**
 * Only the fields the protocol knows, so nothing else of ours ends up on the wire.
 * The wire wants choice criteria as an object, whose keys a JavaScript object would
 * list integer-like first: they are recorded in presentation order, which the
 * engine's serializer (stringifyInOrder) writes, so the server reads them as presented.
 */
export function toWireQuestions(questions: Questions): Record<string, WireQuestion> {
  return orderedObject(
    Object.entries(questions).map(([id, q]) => {
      const wire: WireQuestion = { type: q.type, instructions: q.instructions };
      if (q.type === 'choice') wire.criteria = orderedObject(q.criteria.map((option) => [option.label, option.description]));
      else if (q.criteria !== undefined) wire.criteria = q.criteria;
      return [id, wire] as const;
    }),
  );
}

// zod 4 numbers are finite, so `1e999` (parsed as Infinity) fails here too.
const mass = z.number().nonnegative();
const wireAnswer = z.discriminatedUnion('type', [
  z.object({ type: z.literal('noul'), noul: z.number().min(0).max(1) }),
  z.object({ type: z.literal('choice'), probabilities: z.record(z.string(), mass) }),
  z.object({ type: z.literal('score'), probabilities: z.record(z.string(), mass) }),
]);
const wireReply = z.object({ answers: z.record(z.string(), z.unknown()) });
const wireUsage = z.object({ usage: z.object({ input_tokens: z.number().int().nonnegative() }) });

const PROVIDER = 'systemone';

function bad(message: string): EngineError {
  return new EngineError('bad_response', `${PROVIDER} engine ${message}`);
}

/** The answers, and the server's count of input tokens: null when it gives none. */
export function readReply<Q extends Questions>(
  questions: Q,
  data: unknown,
): { answers: EngineReply<Q>['answers']; inputTokens: number | null } {
  const reply = wireReply.safeParse(data);
  if (!reply.success) throw bad('answered with something that is not a systemone reply');
  const answers: Record<string, Answer> = {};
  for (const [id, question] of Object.entries(questions)) {
    if (!(id in reply.data.answers)) throw bad(`left question "${id}" unanswered`);
    answers[id] = readAnswer(id, question, reply.data.answers[id]);
  }
  // Token counts are bookkeeping, not the answer: a malformed one is taken as none given.
  const usage = wireUsage.safeParse(data);
  return {
    answers: answers as EngineReply<Q>['answers'],
    inputTokens: usage.success ? usage.data.usage.input_tokens : null,
  };
}

function readAnswer(id: string, question: Question, raw: unknown): Answer {
  const parsed = wireAnswer.safeParse(raw);
  if (!parsed.success) throw bad(`answered "${id}" with a malformed ${question.type} answer`);
  const answer = parsed.data;
  if (answer.type !== question.type) throw bad(`answered ${question.type} question "${id}" as ${answer.type}`);
  if (answer.type === 'noul') return { type: 'noul', yes: answer.noul };

  const labels =
    question.type === 'choice'
      ? question.criteria.map((option) => option.label)
      : question.type === 'score'
        ? question.criteria.map((_, i) => String(i))
        : [];
  // Read from the parsed JSON itself, whose members are all its own: zod's copy of a
  // record drops an option named "__proto__" (and `in` would find the prototype's).
  const sent = (raw as { probabilities: Record<string, unknown> }).probabilities;
  const offered = new Set(labels);
  const missing = labels.filter((label) => !Object.hasOwn(sent, label));
  if (missing.length > 0) throw bad(`gave "${id}" no probability for ${missing.map((l) => `"${l}"`).join(', ')}`);
  const unknown = Object.keys(sent).filter((label) => !offered.has(label));
  if (unknown.length > 0) throw bad(`gave "${id}" probabilities for labels it was not offered: ${unknown.map((l) => `"${l}"`).join(', ')}`);
  const values = labels.map((label) => sent[label]);
  if (!values.every((p) => typeof p === 'number')) throw bad(`answered "${id}" with a malformed ${question.type} answer`);
  const distribution = normalise(values as number[]);
  if (!distribution) throw bad(`gave "${id}" a distribution with no usable mass`);

  return question.type === 'choice'
    ? { type: 'choice', probabilities: Object.fromEntries(labels.map((label, i) => [label, distribution[i]])) }
    : { type: 'score', probabilities: distribution };
}
