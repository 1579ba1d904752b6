import { entryText, type SystemOneAnswer, type SystemOneQuestion, type SystemOneRequest, type SystemOneResponse } from '../contract/systemone.js';
import { askEach, type EachRead, type OwnQuestion } from '../decision/ask-each.js';
import type { Debias } from '../decision/debias.js';
import { expectedLevel, peakConfidence, type Reading, topIndex } from '../decision/outcome.js';
import type { Temperatures } from '../decision/temperature.js';
import type { Engine, Question } from '../engine/engine.js';
import type { PaidWork } from './paid.js';

/** What a question without instructions asks. */
const UNSAID: Record<Question['type'], string> = {
  noul: 'Is this so?',
  choice: 'Which of the options fits best?',
  score: 'Which level fits best?',
};

/**
 * A System One request as paid work: every question is one standard decision, all
 * reserved together; those the engine answers are charged, the rest given back. The
 * engine reads the caller's own wording (cleaned as every text of a decision is);
 * the answers carry the caller's own labels, spelled as sent.
 */
export function systemOneWork(
  request: SystemOneRequest,
  engine: Engine,
  options: { debias: Debias; temperatures: Temperatures },
): PaidWork<SystemOneResponse, EachRead> {
  const own = new Map(Object.entries(request.questions).map(([name, q]) => [name, engineQuestion(q)]));
  return {
    route: 'systemone',
    request,
    depth: 'standard',
    units: own.size,
    async run(signal) {
      const read = await askEach(entryText(request.state), own, engine, { signal, ...options });
      // Nothing answered is nothing served: the request fails, as the engine did, and costs nothing.
      if (read.readings.size === 0) throw read.unanswered.values().next().value;
      return { made: read, units: read.readings.size };
    },
    respond: (read) => ({
      model: engine.model,
      answers: Object.fromEntries(
        Object.entries(request.questions).flatMap(([name, question]) => {
          const reading = read.readings.get(name);
          return reading ? [[name, answerOf(question, reading)]] : [];
        }),
      ),
      // Decide reads distributions and writes nothing: no output tokens.
      usage: { input_tokens: read.inputTokens ?? 0, output_tokens: 0 },
    }),
  };
}

/** The question as the engine is asked it, and the labels its answer is read under. */
function engineQuestion(q: SystemOneQuestion): OwnQuestion {
  const instructions = entryText(q.instructions) || UNSAID[q.type];
  switch (q.type) {
    case 'noul':
      return {
        question: { type: 'noul', instructions, criteria: { true: entryText(q.criteria?.true) || null, false: entryText(q.criteria?.false) || null } },
        labels: [],
      };
    case 'choice': {
      const labels = Object.keys(q.criteria);
      const criteria = labels.map((label) => ({ label: entryText(label), description: entryText(q.criteria[label]) || null }));
      return { question: { type: 'choice', instructions, criteria }, labels };
    }
    case 'score':
      // A level without a description is shown as its number, all there is to tell it by.
      return {
        question: { type: 'score', instructions, criteria: q.criteria.map((level, i) => entryText(level) || String(i)) },
        labels: q.criteria.map((_, i) => String(i)),
      };
  }
}

/** A reading in the format's answer: probabilities as read, the leader, and how sure. */
function answerOf(question: SystemOneQuestion, reading: Reading): SystemOneAnswer {
  if (reading.mode === 'noul') return { type: 'noul', noul: reading.yes };
  const probabilities = Object.fromEntries(reading.labels.map((label, i) => [label, reading.p[i]]));
  const confidence = peakConfidence(Math.max(...reading.p), reading.p.length);
  if (question.type === 'score') {
    const legend = Object.fromEntries(question.criteria.map((level, i) => [String(i), level]));
    return { type: 'score', score: expectedLevel(reading.p), confidence, legend, probabilities };
  }
  return { type: 'choice', choice: reading.labels[topIndex(reading.p)], confidence, probabilities };
}
