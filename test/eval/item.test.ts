import { describe, expect, it } from 'vitest';
import { parseSet, SetError } from '../../src/eval/item.js';
import { planEval } from '../../src/eval/plan.js';

const CHOICE = {
  id: 'c1',
  mode: 'choice',
  question: 'Which carrier should we book for the order?',
  context:
    'We book the cheapest carrier that delivers within the deadline. Carrier Blue costs 40 dollars and takes 6 days. ' +
    'Carrier Red costs 55 dollars and takes 3 days. The customer needs the goods within 4 days.',
  options: ['Carrier Blue', 'Carrier Red'],
  answer: 'Carrier Red',
  decisiveFact: 'The customer needs the goods within 4 days.',
};
const line = (value: unknown) => JSON.stringify(value);

/** The SetError a text throws, or fails. */
function problem(text: string): SetError {
  try {
    parseSet(text, 'set.jsonl');
  } catch (error) {
    if (error instanceof SetError) return error;
    throw error;
  }
  throw new Error('the text was accepted');
}

describe('reading a labelled set', () => {
  it('parses items of each mode, skipping blank lines', () => {
    const items = parseSet(
      [
        line(CHOICE),
        '',
        line({
          id: 'n1',
          mode: 'noul',
          question: 'Can the lead approve it alone?',
          context: 'Leads approve up to 500 dollars. It costs 800.',
          answer: false,
        }),
        line({
          id: 's1',
          mode: 'score',
          question: 'How urgent is the alert?',
          context: 'Over 85 percent full is high. It is 93 percent full.',
          levels: ['low', 'medium', 'high'],
          answer: 'high',
          sufficient: true,
        }),
      ].join('\n'),
      'set.jsonl',
    );
    expect(items.map((i) => i.id)).toEqual(['c1', 'n1', 's1']);
  });

  it.each([
    ['not JSON', '{"id": "x",', /line 2: not valid JSON/],
    ['an unknown field', line({ ...CHOICE, id: 'x', weight: 2 }), /line 2: weight: not allowed here/],
    ['a field of another mode', line({ ...CHOICE, id: 'x', mode: 'noul', answer: true }), /line 2: .*options: not allowed here/],
    [
      'an answer that is not an option',
      line({ ...CHOICE, id: 'x', answer: 'Carrier Green' }),
      /line 2: answer: must be one of the options/,
    ],
    [
      'a noul answer that is not a boolean',
      line({ id: 'x', mode: 'noul', question: 'Is it allowed here?', context: 'The rule allows it in every case.', answer: 'yes' }),
      /line 2: answer:/,
    ],
    ['a question too short for the API', line({ ...CHOICE, id: 'x', question: 'Which?' }), /line 2: question: must be 8 to 300 characters/],
    ['one option', line({ ...CHOICE, id: 'x', options: ['Carrier Red'] }), /line 2: options: must hold 2 to 6 options/],
    [
      'a decisive fact that is not a sentence of the context',
      line({ ...CHOICE, id: 'x', decisiveFact: 'The customer needs them.' }),
      /line 2: decisiveFact: must be one sentence/,
    ],
    ['a repeated id', line(CHOICE), /line 2: id: "c1" is already the id of line 1/],
    ['an unknown mode', line({ ...CHOICE, id: 'x', mode: 'rank' }), /line 2: mode: must be one of choice, noul, score/],
  ])('refuses %s, naming the line and the field', (_what, second, message) => {
    const error = problem(`${line(CHOICE)}\n${second}`);
    expect(error.line).toBe(2);
    expect(error.message).toMatch(message);
  });
});

describe('what an evaluation asks', () => {
  it('each item as written, reversed when it has an order, and without its decisive fact; a twin is asked once', () => {
    const twin = { ...CHOICE, id: 'c1-nofact', context: CHOICE.context.replace(' ' + CHOICE.decisiveFact, ''), sufficient: false };
    delete (twin as Partial<typeof CHOICE>).decisiveFact;
    const items = parseSet([line(CHOICE), line(twin)].join('\n'), 'set.jsonl');
    const plan = planEval(items);
    // Item by item: c1 as written, reversed, then without its fact (its twin as written); the twin reversed.
    expect(plan.asks.map((a) => `${a.id}:${a.variant}`)).toEqual(['c1:given', 'c1:reversed', 'c1-nofact:given', 'c1-nofact:reversed']);
    expect(plan.items[0].withoutFact).toBe(plan.items[1].given);
    const reversed = plan.asks.find((a) => a.variant === 'reversed')!.request;
    expect(reversed.mode === 'choice' && reversed.options).toEqual(['Carrier Red', 'Carrier Blue']);
  });
});
