import { z } from 'zod';
import { MODES } from './modes.js';
import { boundedText, comparable } from './text.js';

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
  .meta({ description: '2 to 6 distinct options (compared trimmed, in NFC, case-insensitively and without invisible characters).' });

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
    error: (issue) =>
      issue.code === 'invalid_union' ? 'must be one of choice, noul, score' : undefined,
  })
  .meta({ id: 'DecisionRequest' });
export type DecisionRequest = z.infer<typeof DecisionRequest>;

const probability = z.number().min(0).max(1);
const distribution = z
  .record(z.string(), probability)
  .meta({ description: 'Keys keep the request order and spelling; values sum to 1 (±0.001).' });

export const ChoiceResult = z.strictObject({
  selected: z.string(),
  confidence: probability,
  probabilities: distribution,
});
export const NoulResult = z.strictObject({ yesProbability: probability });
export const ScoreResult = z.strictObject({
  score: z.number().min(0).max(2).meta({ description: 'Expected level index Σ i·pᵢ, 0 = lowest.' }),
  confidence: probability,
  probabilities: distribution,
});
export const DecisionResult = z.union([ChoiceResult, NoulResult, ScoreResult]).meta({ id: 'DecisionResult' });
export type DecisionResult = z.infer<typeof DecisionResult>;

export const Signal = z.enum(['directional', 'yes', 'no', 'unclear', 'needs-context']);
export type Signal = z.infer<typeof Signal>;

const ReversedCheck = z.strictObject({
  kind: z.literal('reversed'),
  agrees: z.boolean(),
  shift: probability,
  result: DecisionResult,
});
const WithoutFactCheck = z.strictObject({
  kind: z.literal('without-fact'),
  factIndex: z.int().min(0),
  fact: z.string(),
  agrees: z.boolean(),
  shift: probability,
  result: DecisionResult,
});
export const StressCheck = z.discriminatedUnion('kind', [ReversedCheck, WithoutFactCheck]);
export type StressCheck = z.infer<typeof StressCheck>;

export const Stress = z
  .strictObject({
    agreement: probability,
    checks: z.array(StressCheck),
    pivot: z
      .strictObject({ factIndex: z.int().min(0), fact: z.string(), shift: probability, flips: z.boolean() })
      .nullable()
      .meta({
        description:
          'The fact without which the answer flips or shifts most (by at least 0.1); null when no single fact decides it (or the context holds one fact).',
      }),
  })
  .meta({ id: 'Stress' });
export type Stress = z.infer<typeof Stress>;

/**
 * Present only on a decision served without a charge: its reservation had been given
 * back (expired while the ledger could not be written) before the decision finished.
 */
const charged = z
  .literal(false)
  .optional()
  .meta({ description: 'Present (false) only when this decision was served without a charge; absent when charged.' });

export const Access = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('free'), freeRemaining: z.int().min(0), charged }),
  z.strictObject({ type: z.literal('pass'), passCredits: z.int().min(0), charged }),
]);
export type Access = z.infer<typeof Access>;

export const Timing = z.strictObject({
  processingMs: z.int().min(0),
  averageMsToday: z.int().min(0).nullable(),
  samplesToday: z.int().min(0).nullable(),
});
export type Timing = z.infer<typeof Timing>;

/** What every answer holds beside its mode and result. */
const answered = {
  question: z.string(),
  signal: Signal,
  contextSufficiency: probability,
  model: z.string(),
  inputTokens: z.int().min(0).nullable().optional(),
  evaluatedAt: z.iso.datetime(),
  access: Access,
  stress: Stress.nullable().optional(),
  timing: Timing,
};

export const ChoiceResponse = z.strictObject({ mode: z.literal('choice'), result: ChoiceResult, ...answered }).meta({ id: 'ChoiceResponse' });
export const NoulResponse = z.strictObject({ mode: z.literal('noul'), result: NoulResult, ...answered }).meta({ id: 'NoulResponse' });
export const ScoreResponse = z.strictObject({ mode: z.literal('score'), result: ScoreResult, ...answered }).meta({ id: 'ScoreResponse' });
export type ChoiceResponse = z.infer<typeof ChoiceResponse>;
export type NoulResponse = z.infer<typeof NoulResponse>;
export type ScoreResponse = z.infer<typeof ScoreResponse>;

/**
 * A decision, one shape per mode: `mode` says which result it holds, so checking it
 * narrows the type (`if (a.mode === 'choice') a.result.selected`), and an answer
 * whose result does not fit its mode is outside the contract.
 */
export const DecisionResponse = z.discriminatedUnion('mode', [ChoiceResponse, NoulResponse, ScoreResponse]).meta({ id: 'DecisionResponse' });
export type DecisionResponse = z.infer<typeof DecisionResponse>;
