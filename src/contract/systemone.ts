import { z } from 'zod';
import { codePoints, comparable, withoutInvisible } from './text.js';

/**
 * `POST /v1/systemone` and `GET /v1/models`: the System One wire format, as its clients
 * (the TypeSafe SDKs and the others) send and read it. A state and named, typed
 * questions; one answer per question, a distribution over the answers it offered.
 */

/** The bounds of one request (docs/api.md). */
export const SYSTEM_ONE_LIMITS = {
  questions: 32,
  /** Logprob engines read at most 20 labels off one token (`top_logprobs: 20`). */
  options: 20,
  /** Logprob engines show levels as single digits. */
  levels: 9,
  stateChars: 16_000,
  instructionsChars: 2_000,
  labelChars: 200,
  descriptionChars: 1_000,
  nameChars: 100,
} as const;

/** Text, a JSON object or array, or null: what the format allows for state, instructions and descriptions. */
const Entry = z.union([z.string(), z.array(z.json()), z.record(z.string(), z.json()), z.null()]);
export type Entry = z.infer<typeof Entry>;

/**
 * An entry as the engine reads it: text as it is, JSON compactly, null as nothing;
 * invisible characters dropped and NFC, as every text of a decision (text.ts).
 */
export function entryText(entry: Entry | undefined): string {
  if (entry === null || entry === undefined) return '';
  const text = typeof entry === 'string' ? entry : JSON.stringify(entry);
  return withoutInvisible(text).normalize('NFC').trim();
}

function boundedEntry(max: number) {
  return Entry.check((ctx) => {
    const n = codePoints(entryText(ctx.value));
    if (n > max) ctx.issues.push({ code: 'custom', message: `must be at most ${max} characters as text (got ${n})`, input: ctx.value });
  }).meta({ description: `Text, a JSON object or array, or null; at most ${max} characters as text (JSON compactly).` });
}

const L = SYSTEM_ONE_LIMITS;
const instructions = boundedEntry(L.instructionsChars).optional();
const description = boundedEntry(L.descriptionChars);

const NoulQuestion = z.strictObject({
  type: z.literal('noul'),
  instructions,
  criteria: z.strictObject({ true: description.optional(), false: description.optional() }).nullable().optional(),
});

const ChoiceCriteria = z
  .record(z.string(), description)
  .check((ctx) => {
    const labels = Object.keys(ctx.value);
    if (labels.length < 2 || labels.length > L.options) {
      ctx.issues.push({ code: 'custom', message: `must hold 2 to ${L.options} labels (got ${labels.length})`, input: ctx.value });
    }
    const seen = new Set<string>();
    for (const label of labels) {
      const n = codePoints(entryText(label));
      const problem =
        n === 0
          ? 'a label must not be empty'
          : n > L.labelChars
            ? `a label must be at most ${L.labelChars} characters (got ${n})`
            : seen.has(comparable(label))
              ? 'must be distinct from the other labels (case-insensitively, ignoring invisible characters)'
              : null;
      if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value, path: [label] });
      seen.add(comparable(label));
    }
  })
  .meta({ description: `2 to ${L.options} distinct labels, each mapped to a description or null.` });

const ChoiceQuestion = z.strictObject({ type: z.literal('choice'), instructions, criteria: ChoiceCriteria });

const ScoreQuestion = z.strictObject({
  type: z.literal('score'),
  instructions,
  criteria: z
    .array(description)
    .min(2, `must hold 2 to ${L.levels} levels`)
    .max(L.levels, `must hold 2 to ${L.levels} levels`)
    .meta({ description: `2 to ${L.levels} level descriptions, indexed by score from 0 (lowest).` }),
});

export const SystemOneQuestion = z.discriminatedUnion('type', [NoulQuestion, ChoiceQuestion, ScoreQuestion], {
  error: (issue) => (issue.code === 'invalid_union' ? 'must be one of noul, choice, score' : undefined),
});
export type SystemOneQuestion = z.infer<typeof SystemOneQuestion>;

const Questions = z
  .record(z.string(), SystemOneQuestion)
  .check((ctx) => {
    const names = Object.keys(ctx.value);
    if (names.length < 1 || names.length > L.questions) {
      ctx.issues.push({ code: 'custom', message: `must hold 1 to ${L.questions} questions (got ${names.length})`, input: ctx.value });
    }
    for (const name of names) {
      const n = codePoints(name);
      if (n === 0 || n > L.nameChars) {
        ctx.issues.push({ code: 'custom', message: `a question's name must be 1 to ${L.nameChars} characters`, input: ctx.value, path: [name] });
      }
    }
  })
  .meta({ description: `1 to ${L.questions} questions, keyed by the names their answers come back under.` });

/** Other members are left alone: clients forward what their callers add. */
export const SystemOneRequest = z
  .object({
    model: z.string().min(1).max(200).optional().meta({ description: 'Accepted whatever it names; the answer names the model that answered.' }),
    state: boundedEntry(L.stateChars),
    questions: Questions,
  })
  .meta({ id: 'SystemOneRequest' });
export type SystemOneRequest = z.infer<typeof SystemOneRequest>;

const probability = z.number().min(0).max(1);

export const SystemOneAnswer = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('noul'), noul: probability.meta({ description: 'The probability of yes.' }) }),
    z.strictObject({
      type: z.literal('choice'),
      choice: z.string().meta({ description: 'The most probable label (ties: the first in request order).' }),
      confidence: probability.meta({ description: '(k·pmax − 1)/(k − 1): 0 when uniform, 1 when certain.' }),
      probabilities: z.record(z.string(), probability),
    }),
    z.strictObject({
      type: z.literal('score'),
      score: z.number().min(0).meta({ description: 'The expected level Σ i·pᵢ, 0 = the lowest.' }),
      confidence: probability,
      legend: z.record(z.string(), Entry).meta({ description: 'Each level as the request described it, keyed "0", "1", …' }),
      probabilities: z.record(z.string(), probability),
    }),
  ])
  .meta({ id: 'SystemOneAnswer' });
export type SystemOneAnswer = z.infer<typeof SystemOneAnswer>;

export const SystemOneResponse = z
  .strictObject({
    model: z.string(),
    answers: z
      .record(z.string(), SystemOneAnswer)
      .meta({ description: 'One answer per question the engine could answer; a question it could not is left out.' }),
    usage: z.strictObject({ input_tokens: z.int().min(0), output_tokens: z.int().min(0) }),
  })
  .meta({ id: 'SystemOneResponse' });
export type SystemOneResponse = z.infer<typeof SystemOneResponse>;

export const ModelList = z
  .strictObject({
    models: z.array(z.strictObject({ name: z.string(), description: z.string(), release_date: z.string() })),
  })
  .meta({ id: 'ModelList' });
export type ModelList = z.infer<typeof ModelList>;
