import { describe, expect, it } from 'vitest';
import type { DecisionResponse } from '../../src/contract/index.js';
import { decisionText } from '../../src/mcp/summary.js';

/** The short text beside a tool's structured answer: what an agent reads first. */
describe('the tool result text', () => {
  const response: DecisionResponse = {
    mode: 'noul',
    question: 'Should we ship the release on Friday?',
    result: { yesProbability: 0.7 },
    signal: 'yes',
    contextSufficiency: 0.8,
    model: 'm',
    inputTokens: 10,
    evaluatedAt: '2026-11-23T10:00:00.000Z',
    access: { type: 'pass', passCredits: 5 },
    stress: {
      agreement: 1,
      checks: [
        { kind: 'reversed', agrees: true, shift: 0.01, result: { yesProbability: 0.69 } },
        { kind: 'without-fact', factIndex: 0, fact: 'All tests pass.', agrees: true, shift: 0.03, result: { yesProbability: 0.67 } },
      ],
      pivot: null,
    },
    timing: { processingMs: 5, averageMsToday: 5, samplesToday: 1 },
  };

  it('says no single fact decides it when the pivot is null', () => {
    expect(decisionText(response)).toContain('no single fact decides it');
  });

  it('names the decisive fact when there is one', () => {
    const pivot = { factIndex: 0, fact: 'All tests pass.', shift: 0.3, flips: true };
    const text = decisionText({ ...response, stress: { ...response.stress!, pivot } });
    expect(text).toContain('decisive fact “All tests pass.” (flips the answer by 0.3)');
    expect(text).not.toContain('no single fact');
  });
});
