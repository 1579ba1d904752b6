import { describe, expect, it } from 'vitest';
import { sleep } from '../../src/net/retry.js';
import { Deadline } from '../../src/engine/deadline.js';
import { normalise } from '../../src/engine/distribution.js';
import { EngineError } from '../../src/engine/engine.js';
import { retryAfterSeconds, statusFailure, withoutKey } from '../../src/engine/http-failures.js';
import { labelDistribution, labelMasses, letterLabels, levelLabels } from '../../src/engine/labels.js';
import { answerFromLabels, noulPresentsNoFirst, renderQuestion } from '../../src/engine/prompt.js';
import { failureOf, ln } from './helpers.js';

describe('labels', () => {
  it('letters in order, then two letters as spreadsheet columns do, up to IU for 255', () => {
    expect(letterLabels(3)).toEqual(['A', 'B', 'C']);
    const many = letterLabels(255);
    expect(many.slice(24, 29)).toEqual(['Y', 'Z', 'AA', 'AB', 'AC']);
    expect(many.slice(50, 53)).toEqual(['AY', 'AZ', 'BA']);
    expect(many.at(-1)).toBe('IU');
    expect(new Set(many).size).toBe(255);
  });

  it('levels as single digits: 1 to k, and 0 to 9 for ten levels', () => {
    expect(levelLabels(3)).toEqual(['1', '2', '3']);
    expect(levelLabels(9).at(-1)).toBe('9');
    expect(levelLabels(10)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(() => levelLabels(11)).toThrow(/at most 10 levels, got 11/);
  });

  it('folds tokens by trimming and case, and sums duplicates', () => {
    const masses = labelMasses(
      [
        { token: 'A', logprob: ln(0.6) },
        { token: ' a', logprob: ln(0.1) },
        { token: 'B', logprob: ln(0.2) },
        { token: 'The', logprob: ln(0.1) },
        { token: 'AB', logprob: ln(0.05) },
      ],
      ['A', 'B'],
    );
    expect(masses[0]).toBeCloseTo(0.7, 12);
    expect(masses[1]).toBeCloseTo(0.2, 12);
  });

  it('renormalises over the labels and keeps the share they held; refuses only when they held none', () => {
    const read = labelDistribution(
      [
        { token: 'Yes', logprob: ln(0.3) },
        { token: 'No', logprob: ln(0.1) },
        { token: 'The', logprob: ln(0.6) },
      ],
      ['Yes', 'No'],
      't',
    );
    expect(read.p[0]).toBeCloseTo(0.75, 12);
    expect(read.p[1]).toBeCloseTo(0.25, 12);
    expect(read.labelMass).toBeCloseTo(0.4, 12);
    expect(() => labelDistribution([{ token: 'The', logprob: ln(0.9) }], ['Yes', 'No'], 't')).toThrow(
      /put none of its top-token probability on the labels Yes, No/,
    );
  });
});

describe('prompt', () => {
  it('presents noul No first only when false comes first', () => {
    expect(noulPresentsNoFirst(undefined)).toBe(false);
    expect(noulPresentsNoFirst({ true: null, false: null })).toBe(false);
    expect(noulPresentsNoFirst({ false: null, true: null })).toBe(true);
    expect(noulPresentsNoFirst({ false: 'only no described' })).toBe(true);
  });

  it('keeps each option on one line so the label list stays parseable', () => {
    const { user, labels } = renderQuestion('Facts\n- a bullet: with colon', {
      type: 'choice',
      instructions: 'Pick one',
      criteria: [
        { label: 'go\nnow', description: 'fast\n  and cheap' },
        { label: 'wait', description: null },
      ],
    });
    expect(labels).toEqual(['A', 'B']);
    expect(
      user.endsWith('Options:\n- A: go now — fast and cheap\n- B: wait\n\nReply with exactly one label: A or B. Write nothing else.'),
    ).toBe(true);
  });

  it('maps a noul distribution back by the Yes label wherever it sits', () => {
    expect(answerFromLabels({ type: 'noul', instructions: '' }, ['No', 'Yes'], [0.2, 0.8])).toEqual({ type: 'noul', yes: 0.8 });
  });
});

describe('http failures', () => {
  it('carries a 5xx Retry-After on as whole seconds, rounded up; ignores one that is no Retry-After', () => {
    expect(statusFailure('p', 502, '7')).toMatchObject({ kind: 'unavailable', retryAfter: 7 });
    expect(statusFailure('p', 502, '1.2')).toMatchObject({ kind: 'unavailable', retryAfter: undefined });
    expect(retryAfterSeconds(1200)).toBe(2);
    expect(statusFailure('p', 418)).toMatchObject({ kind: 'bad_response' });
  });

  it('scrubs a key out of any message', () => {
    const scrubbed = withoutKey(new EngineError('busy', 'key sk-1 and sk-1 again', 3), 'sk-1') as EngineError;
    expect(scrubbed).toMatchObject({ kind: 'busy', retryAfter: 3, message: 'key [redacted] and [redacted] again' });
  });
});

describe('distribution and deadline', () => {
  it('normalises, or refuses an empty or overflowing mass', () => {
    expect(normalise([1, 3])).toEqual([0.25, 0.75]);
    expect(normalise([0, 0])).toBeNull();
    expect(normalise([1e308, 1e308])).toBeNull();
  });

  it('says which deadline fired, as the reason its signal aborts with', async () => {
    const own = new Deadline(new AbortController().signal, 50, 'p');
    const err = await failureOf(sleep(1000, own.signal));
    expect(err.message).toContain('within 50 ms');
    own.dispose();
    const caller = new AbortController();
    const theirs = new Deadline(caller.signal, 10_000, 'p');
    setTimeout(() => caller.abort(), 20);
    expect((await failureOf(sleep(1000, theirs.signal))).message).toContain("decision's deadline");
    theirs.dispose();
  });
});
