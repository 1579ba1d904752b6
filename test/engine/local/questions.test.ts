import { describe, expect, it } from 'vitest';
import type { ChoiceQuestion, NoulQuestion } from '../../../src/engine/engine.js';
import { fromLibrary, toLibrary } from '../../../src/engine/local/questions.js';

/** What the local engine hands node-llama-cpp: the order it presents is the order of these objects. */
describe('local engine: questions in the library shape', () => {
  const year: ChoiceQuestion = {
    type: 'choice',
    instructions: 'Which year?',
    criteria: [
      { label: '2025', description: 'the current release' },
      { label: '1999', description: null },
    ],
  };

  it('keeps integer-like options in the given order under positional keys, and maps answers back to labels', () => {
    const asked = toLibrary(year);
    expect(asked).toEqual({
      type: 'choice',
      instruction: 'Which year?',
      criteria: { 'option-1': '2025: the current release', 'option-2': '1999' },
    });
    expect(Object.values(asked.criteria as Record<string, string>)).toEqual(['2025: the current release', '1999']);
    const answer = fromLibrary(year, { type: 'choice', probabilities: { 'option-1': 0.7, 'option-2': 0.3 } });
    expect(answer).toEqual({ type: 'choice', probabilities: { '2025': 0.7, '1999': 0.3 } });
  });

  it("asks Yes-first yes/no questions as the library's own noul question", () => {
    const q: NoulQuestion = { type: 'noul', instructions: 'Ship?', criteria: { true: 'Yes', false: 'No' } };
    expect(toLibrary(q)).toEqual({ type: 'noul', instruction: 'Ship?', criteria: { true: 'Yes', false: 'No' } });
    expect(fromLibrary(q, { type: 'noul', value: 0.8 })).toEqual({ type: 'noul', yes: 0.8 });
  });

  it('asks No-first questions as a No/Yes choice with the same wording, read back as P(yes)', () => {
    const q: NoulQuestion = { type: 'noul', instructions: 'Ship?', criteria: { false: 'it waits', true: 'it ships' } };
    const asked = toLibrary(q);
    expect(asked).toEqual({ type: 'choice', instruction: 'Ship?', criteria: { no: 'No. it waits', yes: 'Yes. it ships' } });
    expect(fromLibrary(q, { type: 'choice', probabilities: { no: 0.25, yes: 0.75 } })).toEqual({ type: 'noul', yes: 0.75 });
  });

  it('gives nothing back for an answer of another type', () => {
    expect(fromLibrary(year, { type: 'noul', value: 0.5 })).toBeUndefined();
  });
});
