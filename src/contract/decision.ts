import { z } from 'zod';
import { MODES } from './modes.js';
import { boundedText, comparable } from './text.js';

/**
 * A decision request, as the API and every channel take it. What the service answers
 * is in ./answer.ts, apart, so `decide ask` checks its request before it loads those.
 */

export { MODES };
export const Mode = z.enum(MODES);
export const Depth = z.enum(['standard', 'stress']);
export type Depth = z.infer<typeof Depth>;

const question = boundedText(8, 300).meta({ description: 'What is to be decided.' });
const context = boundedText(20, 2000).meta({
  description: 'The facts the decision rests on: sentences or list items.',
});
const depth = Depth.default('standard').meta({
  description: '`stress` re-asks with options reversed and with each fact removed (5 credits).',
});

const options = z
  .array(boundedText(2, 100))
  .min(2, 'must hold 2 to 6 options')
  .max(6, 'must hold 2 to 6 options')
  .check((ctx) => {
    const seen = new Set<string>();
    ctx.value.forEach((option, i) => {
      const folded = comparable(option);
      if (seen.has(folded)) {
        ctx.issues.push({
          code: 'custom',
          message: `must be distinct (case-insensitively, ignoring invisible characters); "${option}" repeats an earlier option`,
          input: ctx.value,
          path: [i],
        });
      }
      seen.add(folded);
    });
  })
  .meta({
    description: '2 to 6 distinct options (compared trimmed, in NFC, case-insensitively and without invisible characters).',
    uniqueItems: true,
  });

const levels = z
  .array(boundedText(2, 100))
  .length(3, 'must hold exactly 3 levels, ordered low to high')
  .meta({ description: 'Exactly 3 levels, ordered from low to high.' });

/**
 * One strict object per mode: a field that does not belong to the mode is an
 * unknown key, rejected by name.
 */
export const ChoiceRequest = z.strictObject({
  mode: z.literal('choice'),
  question,
  context,
  options,
  depth,
});
export const NoulRequest = z.strictObject({ mode: z.literal('noul'), question, context, depth });
export const ScoreRequest = z.strictObject({
  mode: z.literal('score'),
  question,
  context,
  levels,
  depth,
});

export const DecisionRequest = z
  .discriminatedUnion('mode', [ChoiceRequest, NoulRequest, ScoreRequest], {
    error: (issue) => (issue.code === 'invalid_union' ? 'must be one of choice, noul, score' : undefined),
  })
  .meta({ id: 'DecisionRequest' });
export type DecisionRequest = z.infer<typeof DecisionRequest>;
