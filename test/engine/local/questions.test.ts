import { describe, expect, it } from 'vitest';
import type { ChoiceQuestion, NoulQuestion, ScoreQuestion } from '../../../src/engine/engine.js';
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

  it('asks yes/no as a lettered choice in the order presented, so reversing swaps which letter means yes', () => {
    const yesFirst: NoulQuestion = { type: 'noul', instructions: 'Ship?', criteria: { true: 'Yes', false: 'No' } };
    const noFirst: NoulQuestion = { type: 'noul', instructions: 'Ship?', criteria: { false: 'No', true: 'Yes' } };
    expect(toLibrary(yesFirst)).toEqual({ type: 'choice', instruction: 'Ship?', criteria: { 'option-1': 'Yes', 'option-2': 'No' } });
    // The same template and wording; only which answer comes first (gets the first letter) differs.
    expect(toLibrary(noFirst)).toEqual({ type: 'choice', instruction: 'Ship?', criteria: { 'option-1': 'No', 'option-2': 'Yes' } });
    expect(fromLibrary(yesFirst, { type: 'choice', probabilities: { 'option-1': 0.8, 'option-2': 0.2 } })).toEqual({ type: 'noul', yes: 0.8 });
    expect(fromLibrary(noFirst, { type: 'choice', probabilities: { 'option-1': 0.8, 'option-2': 0.2 } })).toEqual({ type: 'noul', yes: 0.2 });
  });

  it('keeps criteria texts with the library wording for yes/no', () => {
    const q: NoulQuestion = { type: 'noul', instructions: 'Ship?', criteria: { false: 'it waits', true: 'it ships' } };
    expect(toLibrary(q)).toEqual({ type: 'choice', instruction: 'Ship?', criteria: { 'option-1': 'No. it waits', 'option-2': 'Yes. it ships' } });
  });

  it('asks score levels as lettered answers, never numbered: digits would read as an order when levels are shown high to low', () => {
    const reversed: ScoreQuestion = { type: 'score', instructions: 'How risky?', criteria: ['high', 'medium', 'low'] };
    expect(toLibrary(reversed)).toEqual({ type: 'choice', instruction: 'How risky?', criteria: { 'option-1': 'high', 'option-2': 'medium', 'option-3': 'low' } });
    const answer = fromLibrary(reversed, { type: 'choice', probabilities: { 'option-1': 0.6, 'option-2': 0.3, 'option-3': 0.1 } });
    // Indexed like the criteria, as every engine answers a score question.
    expect(answer).toEqual({ type: 'score', probabilities: [0.6, 0.3, 0.1] });
  });

  it('gives nothing back for an answer of another type', () => {
    expect(fromLibrary(year, { type: 'noul', value: 0.5 })).toBeUndefined();
  });
});
