import { z } from 'zod';

/** What the service answers a decision request with (the request is in ./decision.ts). */

const probability = z.number().min(0).max(1);

/**
 * Named, not inline: openapi-python-client builds an object that sits inside a member of
 * a union (`DecisionResult`) twice, and the second time refuses it as a duplicate model
 * (`DecisionResultType0Probabilities`), dropping the result's members with it.
 */
const distribution = z
  .record(z.string(), probability)
  .meta({ id: 'Probabilities', description: 'Keys keep the request order and spelling; values sum to 1 (±0.001).' });

/**
 * `confidence`, wherever a result has one: the top answer's margin over an even split,
 * (k·pmax − 1)/(k − 1) for k options or levels (decision/outcome.ts `peakConfidence`).
 * Not a probability: the top answer's probability is in `probabilities`.
 */
const confidence = z.number().min(0).max(1).meta({
  description:
    'How far the answer is from an even split: (k·pmax − 1)/(k − 1), where pmax is the largest of the k probabilities; 0 = evenly split, 1 = certain. Not a probability: the probability of the top answer is its value in `probabilities` (two options at 0.75 and 0.25 have confidence 0.5).',
});

export const ChoiceResult = z.strictObject({
  selected: z.string(),
  confidence,
  probabilities: distribution,
});
export const NoulResult = z.strictObject({ yesProbability: probability });
export const ScoreResult = z.strictObject({
  score: z.number().min(0).max(2).meta({ description: 'Expected level index Σ i·pᵢ, 0 = lowest.' }),
  likeliest: z.string().meta({
    description:
      'The level with the highest probability (ties: the first in request order); `score` is the mean, which may sit on another level.',
  }),
  confidence,
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
          "The fact that decides the answer: of the without-fact checks whose shift is more than 1.5 times the engine's own noise on this question (the larger of the reversed check's shift and any other fact's) and that flip an answer that led clearly or shift it by at least 0.1, the largest shift; null when no single fact decides it (or the context holds one fact).",
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
  labelMass: probability.nullable().optional().meta({
    description:
      "How much of the model's next-token probability fell on the answers' labels (every spelling of a label counted), the smallest over the readings behind `result`, before `probabilities` were renormalised over the labels: near 1, the model answered the question; lower, it mostly wanted to say something else, and the probabilities are the rest read at a magnification. Under 0.5 the signal is `unclear`, whatever the probabilities say. null when the engine does not read token probabilities (anthropic, systemone, openai with verbalized probabilities); absent in answers of earlier versions.",
  }),
  model: z.string(),
  inputTokens: z.int().min(0).nullable().optional().meta({
    description:
      "Prompt tokens over every engine call of the decision: each call's count as its server reported it, else decide's own o200k_base count of what the call sent. Always a number from this version on; null in answers of earlier versions when a server reported none.",
  }),
  evaluatedAt: z.iso.datetime(),
  access: Access,
  stress: Stress.nullable().optional(),
  timing: Timing,
};

export const ChoiceResponse = z
  .strictObject({ mode: z.literal('choice'), result: ChoiceResult, ...answered })
  .meta({ id: 'ChoiceResponse' });
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
export const DecisionResponse = z
  .discriminatedUnion('mode', [ChoiceResponse, NoulResponse, ScoreResponse])
  .meta({ id: 'DecisionResponse' });
export type DecisionResponse = z.infer<typeof DecisionResponse>;
