import { describe, expect, it } from 'vitest';
import type { DecisionResponse } from '../../src/contract/index.js';
import { topAnswer } from '../../src/service/log-entry.js';

/** Only the result matters to the log's top answer. */
const answer = (result: object) => ({ result }) as DecisionResponse;

describe("the decision log's numbers", () => {
  it('are the same two in every mode: the top probability, and the confidence as the API defines it', () => {
    expect(topAnswer(answer({ selected: 'PostgreSQL', confidence: 0.08, probabilities: { PostgreSQL: 0.54, MongoDB: 0.46 } }))).toEqual({
      top: 'PostgreSQL',
      topProbability: 0.54,
      confidence: 0.08,
    });
    // A noul's result carries no confidence: with two sides it is |2·yes − 1|.
    expect(topAnswer(answer({ yesProbability: 0.54 }))).toEqual({ top: 'yes', topProbability: 0.54, confidence: 0.08 });
    expect(topAnswer(answer({ yesProbability: 0.1 }))).toEqual({ top: 'no', topProbability: 0.9, confidence: 0.8 });
    expect(topAnswer(answer({ yesProbability: 0.5 }))).toEqual({ top: 'yes', topProbability: 0.5, confidence: 0 });
    // A score's top answer is its likeliest level, not the level of its mean.
    const score = { score: 0.997, likeliest: 'low', confidence: 0.076, probabilities: { low: 0.384, medium: 0.235, high: 0.381 } };
    expect(topAnswer(answer(score))).toEqual({ top: 'low', topProbability: 0.384, confidence: 0.076 });
  });
});
