import {
  type Content,
  contentText,
  type SystemOneAnswer,
  type SystemOneQuestion,
  type SystemOneRequest,
  type SystemOneResponse,
} from '../contract/systemone.js';
import { askEach, type EachRead, type OwnQuestion } from '../decision/ask-each.js';
import { expectedLevel, peakConfidence, type Reading, round4, topIndex } from '../decision/outcome.js';
import type { Scalings } from '../decision/scaling.js';
import type { AskContext, Engine, Question } from '../engine/engine.js';
import { keysInOrder, orderedObject, stringifyInOrder } from '../json/key-order.js';
import type { PaidWork } from './paid.js';
import type { Debias } from '../contract/debias.js';

/** What a question without instructions asks. */
const UNSAID: Record<Question['type'], string> = {
  noul: 'Is this so?',
  choice: 'Which of the options fits best?',
  score: 'Which level fits best?',
};

/**
 * A System One request as paid work: every question is one standard decision, all
 * reserved together, and every one answered or the request fails whole, charged
 * nothing. The engine reads the caller's own wording (cleaned as every text of a
 * decision is), options and questions in the order the caller wrote them; the answer
 * carries the caller's own ids and option names, spelled and ordered as sent.
 *
 * `request` must be the body as parsed by json/key-order.ts (validated, not a copy):
 * its objects carry the order they were written in, which a copy would lose.
 */
export function systemOneWork(
  request: SystemOneRequest,
  engine: Engine,
  options: { debias: Debias; scalings: Scalings; call?: AskContext },
): PaidWork<SystemOneResponse, EachRead> {
  const ids = keysInOrder(request.questions);
  const own = new Map(ids.map((id) => [id, engineQuestion(request.questions[id])]));
  // What the answer depends on, in the order written: a retry with its options reordered asks something else.
  const fingerprint = stringifyInOrder({ route: 'systemone', model: request.model, state: request.state, questions: request.questions });
  return {
    route: 'systemone',
    request,
    fingerprint,
    depth: 'standard',
    units: ids.length,
    async run(signal) {
      const read = await askEach(contentText(request.state), own, engine, { signal, ...options });
      return { made: read, units: ids.length };
    },
    respond: (read) => ({
      model: engine.model,
      answers: orderedObject(ids.map((id) => [id, answerOf(request.questions[id], own.get(id)!, read.readings.get(id)!)])),
      // Decide reads distributions and writes nothing: no output tokens.
      usage: { input_tokens: read.inputTokens ?? 0, output_tokens: 0 },
    }),
    serialize: stringifyInOrder,
  };
}

/** The question as the engine is asked it, and the labels its answer is read under. */
function engineQuestion(q: SystemOneQuestion): OwnQuestion {
  const instructions = contentText(q.instructions) || UNSAID[q.type];
  switch (q.type) {
    case 'noul':
      return {
        question: {
          type: 'noul',
          instructions,
          criteria: { true: contentText(q.criteria?.true) || null, false: contentText(q.criteria?.false) || null },
        },
        labels: [],
      };
    case 'choice': {
      const labels = keysInOrder(q.criteria);
      const criteria = labels.map((label) => ({ label: contentText(label), description: contentText(q.criteria[label]) || null }));
      return { question: { type: 'choice', instructions, criteria }, labels };
    }
    case 'score':
      return {
        question: { type: 'score', instructions, criteria: q.criteria.map(levelText) },
        labels: q.criteria.map((_, i) => String(i)),
      };
  }
}

/** A level without a description is shown as its number, all there is to tell it by. */
const levelText = (level: Content, i: number) => contentText(level) || String(i);

/** A reading in the format's answer: probabilities as read, in request order, the leader, and how sure. */
function answerOf(question: SystemOneQuestion, own: OwnQuestion, reading: Reading): SystemOneAnswer {
  if (reading.mode === 'noul') return { type: 'noul', noul: reading.yes };
  const probabilities = orderedObject(own.labels.map((label, i) => [label, reading.p[i]]));
  if (question.type === 'score') {
    // The level as sent; one sent as null, as the number it was shown as (the format's legend has no null).
    const legend = orderedObject(question.criteria.map((level, i) => [String(i), level ?? String(i)]));
    return { type: 'score', score: expectedLevel(reading.p), confidence: spreadConfidence(reading.p), legend, probabilities };
  }
  return {
    type: 'choice',
    choice: own.labels[topIndex(reading.p)],
    confidence: peakConfidence(Math.max(...reading.p), reading.p.length),
    probabilities,
  };
}

/**
 * A score's confidence as the format's reference defines it, by distance: how far the
 * probability lies from the likeliest level (Σ pᵢ·|i − mode|), against how far it
 * lies from the middle when it is spread evenly; 1 when certain, 0 (never below) when
 * as spread as uniform. Unlike the choice formula it counts a neighbouring level as
 * a smaller miss than a distant one, as befits levels in order.
 */
export function spreadConfidence(p: readonly number[]): number {
  const k = p.length;
  const mode = topIndex(p);
  const spread = p.reduce((sum, pi, i) => sum + pi * Math.abs(i - mode), 0);
  const uniform = p.reduce((sum, _, i) => sum + Math.abs(i - (k - 1) / 2), 0) / k;
  return round4(Math.max(0, 1 - spread / uniform));
}
