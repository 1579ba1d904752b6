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
    const text = decisionText(response);
    expect(text).toContain('verdict stable (every check agrees with the answer)');
    expect(text).toContain('no single fact decides it: leaving one out never flips the answer or moves it 10% or more');
  });

  it('names the decisive fact when there is one', () => {
    const pivot = { factIndex: 0, fact: 'All tests pass.', shift: 0.3, flips: true };
    const flipped = {
      kind: 'without-fact' as const,
      factIndex: 0,
      fact: 'All tests pass.',
      agrees: false,
      shift: 0.3,
      result: { yesProbability: 0.4 },
    };
    const checks = [response.stress!.checks[0], flipped];
    const text = decisionText({ ...response, stress: { agreement: 0.5, checks, pivot } });
    expect(text).toContain('verdict fragile: one fact decides it (without fact 1 the answer changes)');
    expect(text).toContain(
      'decisive fact “All tests pass.”: without it the answer shifts by 30 % and flips: the decision rests on this fact',
    );
    expect(text).not.toContain('no single fact');
  });

  it('says why no fact decides it when one tips a near-tie, with the verdict the CLI and the page give', () => {
    const tipped = {
      kind: 'without-fact' as const,
      factIndex: 0,
      fact: 'All tests pass.',
      agrees: false,
      shift: 0.0213,
      result: { yesProbability: 0.4913 },
    };
    const text = decisionText({
      ...response,
      result: { yesProbability: 0.5126 },
      signal: 'unclear',
      stress: { agreement: 0.5, checks: [response.stress!.checks[0], tipped], pivot: null },
    });
    expect(text).toContain('verdict needs more facts (no answer leads clearly)');
    expect(text).toContain('no single fact decides it: the answer leads too narrowly for a change of under 10% to count');
    expect(text).not.toContain('decisive fact');
  });
});
