import { type Content, contentText, type SystemOneAnswer, type SystemOneQuestion } from '../contract/systemone.js';
import type { Question } from '../engine/engine.js';
import { keysInOrder, orderedObject } from '../json/key-order.js';
import type { OwnQuestion } from './ask-each.js';
import { expectedLevel, peakConfidence, type Reading, round4, topIndex } from './outcome.js';

/**
 * A System One caller's question as the engine is asked it, and the engine's reading
 * as the format answers it: the translation on either side of ask-each.ts, which asks
 * and reads. The caller's wording is read as written (cleaned as every text of a
 * decision is), its option names kept for the answer, spelled and ordered as sent.
 */

/** What a question without instructions asks. */
const UNSAID: Record<Question['type'], string> = {
  noul: 'Is this so?',
  choice: 'Which of the options fits best?',
  score: 'Which level fits best?',
};

/** The question as the engine is asked it, and the labels its answer is read under. */
export function systemOneQuestion(q: SystemOneQuestion): OwnQuestion {
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
export function systemOneAnswer(question: SystemOneQuestion, own: OwnQuestion, reading: Reading): SystemOneAnswer {
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
