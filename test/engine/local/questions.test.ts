import { describe, expect, it } from 'vitest';
import type { ChoiceQuestion, NoulQuestion, ScoreQuestion } from '../../../src/engine/engine.js';
import { answerOf, lettered } from '../../../src/engine/local/questions.js';

/** What the local engine letters A, B, C… in its prompt: the order presented is the order of these answers. */
describe('local engine: questions as lettered answers', () => {
  const year: ChoiceQuestion = {
    type: 'choice',
    instructions: 'Which year?',
    criteria: [
      { label: '2025', description: 'the current release' },
      { label: '1999', description: null },
    ],
  };

  it('keeps integer-like options in the given order, and maps answers back to labels', () => {
    expect(lettered(year)).toEqual({ instruction: 'Which year?', answers: ['2025: the current release', '1999'] });
    expect(answerOf(year, [0.7, 0.3])).toEqual({ type: 'choice', probabilities: { '2025': 0.7, '1999': 0.3 } });
  });

  it('asks yes/no as a lettered choice in the order presented, so reversing swaps which letter means yes', () => {
    const yesFirst: NoulQuestion = { type: 'noul', instructions: 'Ship?', criteria: { true: 'Yes', false: 'No' } };
    const noFirst: NoulQuestion = { type: 'noul', instructions: 'Ship?', criteria: { false: 'No', true: 'Yes' } };
    expect(lettered(yesFirst)).toEqual({ instruction: 'Ship?', answers: ['Yes', 'No'] });
    // The same wording; only which answer comes first (gets A) differs.
    expect(lettered(noFirst)).toEqual({ instruction: 'Ship?', answers: ['No', 'Yes'] });
    expect(answerOf(yesFirst, [0.8, 0.2])).toEqual({ type: 'noul', yes: 0.8 });
    expect(answerOf(noFirst, [0.8, 0.2])).toEqual({ type: 'noul', yes: 0.2 });
  });

  it('keeps the criteria texts after Yes and No', () => {
    const q: NoulQuestion = { type: 'noul', instructions: 'Ship?', criteria: { false: 'it waits', true: 'it ships' } };
    expect(lettered(q).answers).toEqual(['No. it waits', 'Yes. it ships']);
  });

  it('letters score levels, never numbers them: digits would read as an order when levels are shown high to low', () => {
    const reversed: ScoreQuestion = { type: 'score', instructions: 'How risky?', criteria: ['high', 'medium', 'low'] };
    expect(lettered(reversed).answers).toEqual(['high', 'medium', 'low']);
    // Indexed like the criteria, as every engine answers a score question.
    expect(answerOf(reversed, [0.6, 0.3, 0.1])).toEqual({ type: 'score', probabilities: [0.6, 0.3, 0.1] });
  });
});
