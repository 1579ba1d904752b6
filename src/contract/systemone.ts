import { z } from 'zod';
import { stringifyInOrder } from '../json/key-order.js';
import { JsonValue } from './json-value.js';
import { codePoints, comparable, hasNul, NUL_REFUSED, withoutInvisible } from './text.js';

/**
 * `POST /v1/systemone` and `GET /v1/models`: the System One wire format, as its clients
 * (the TypeSafe SDKs and the others) send and read it. A state and named, typed
 * questions; one answer per question, a distribution over the answers it offered.
 */

/** The bounds of one request (docs/api.md, System One). */
export const SYSTEM_ONE_LIMITS = {
  questions: 64,
  /** The format's own bounds: 2 to 255 options, 2 to 10 levels. */
  options: 255,
  levels: 10,
  stateChars: 16_000,
  instructionsChars: 2_000,
  labelChars: 200,
  descriptionChars: 1_000,
  /** 255 options with descriptions do not fit the API's 64 KiB; 1 MiB holds the largest question the bounds allow. */
  bodyBytes: 1024 * 1024,
} as const;

const L = SYSTEM_ONE_LIMITS;

/**
 * Text, a JSON object or array, or null: what the format allows for state,
 * instructions and descriptions. Deliberately not named: each use carries its own
 * bound in its description, while the values inside refer to the one JsonValue.
 */
const Content = z.union([z.string(), z.array(JsonValue), z.record(z.string(), JsonValue), z.null()], {
  error: 'must be text, a JSON object or array, or null',
});
export type Content = z.infer<typeof Content>;

/**
 * Content as the engine reads it: text as it is, JSON compactly with its keys in the
 * order the caller wrote them (json/key-order.ts), null as nothing; invisible
 * characters dropped and NFC, as every text of a decision (text.ts).
 */
export function contentText(content: Content | undefined): string {
  if (content === null || content === undefined) return '';
  const text = typeof content === 'string' ? content : stringifyInOrder(content);
  return withoutInvisible(text).normalize('NFC').trim();
}

/**
 * Where in `content` the first string or key holding a NUL is (text.ts `NUL_REFUSED`),
 * the shallowest first, as a path from the content itself; null when none does. Without
 * recursion, as json-shape.ts walks a body.
 */
function nulAt(content: Content): (string | number)[] | null {
  const queue: Array<{ value: unknown; path: (string | number)[] }> = [{ value: content, path: [] }];
  for (let i = 0; i < queue.length; i++) {
    const { value, path } = queue[i];
    if (typeof value === 'string') {
      if (hasNul(value)) return path;
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => queue.push({ value: item, path: [...path, index] }));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (hasNul(key)) return [...path, key];
        queue.push({ value: item, path: [...path, key] });
      }
    }
  }
  return null;
}

function boundedContent(max: number) {
  return Content.check((ctx) => {
    const nul = nulAt(ctx.value);
    if (nul) {
      ctx.issues.push({ code: 'custom', message: NUL_REFUSED, input: ctx.value, path: nul });
      return;
    }
    const n = codePoints(contentText(ctx.value));
    if (n > max) ctx.issues.push({ code: 'custom', message: `must be at most ${max} characters as text (got ${n})`, input: ctx.value });
  }).meta({ description: `Text, a JSON object or array, or null; at most ${max} characters as text (JSON compactly).` });
}

/**
 * A record that refuses the key "__proto__", naming it. zod's records drop that key
 * without a word, leaving its value unchecked, and a plain JavaScript object cannot
 * hold it as data: the one question id and option name this server cannot take.
 */
function withoutProtoKey<T extends z.ZodType>(record: T, what: string) {
  return z.preprocess((input, ctx) => {
    if (input !== null && typeof input === 'object' && Object.hasOwn(input, '__proto__')) {
      ctx.issues.push({ code: 'custom', message: `"__proto__" cannot be ${what} here`, input, path: ['__proto__'] });
    }
    return input;
  }, record);
}

const instructions = boundedContent(L.instructionsChars).optional();
const description = boundedContent(L.descriptionChars);

const NoulQuestion = z.strictObject({
  type: z.literal('noul'),
  instructions,
  criteria: z.strictObject({ true: description.optional(), false: description.optional() }).nullable().optional(),
});

const ChoiceOptions = z
  .record(z.string(), description)
  .check((ctx) => {
    const labels = Object.keys(ctx.value);
    if (labels.length < 2 || labels.length > L.options) {
      ctx.issues.push({ code: 'custom', message: `must hold 2 to ${L.options} options (got ${labels.length})`, input: ctx.value });
    }
    // Compared as the engine sees them (trimmed, NFC, without invisible characters), and case-insensitively.
    const seen = new Map<string, string>();
    for (const label of labels) {
      const n = codePoints(contentText(label));
      const same = comparable(contentText(label));
      const earlier = seen.get(same);
      const problem = hasNul(label)
        ? NUL_REFUSED
        : n === 0
          ? 'an option name must not be empty'
          : n > L.labelChars
            ? `an option name must be at most ${L.labelChars} characters (got ${n})`
            : earlier !== undefined
              ? `must be distinct from the other options (case-insensitively, ignoring invisible characters and surrounding white space); ${JSON.stringify(label)} repeats ${JSON.stringify(earlier)}`
              : null;
      if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value, path: [label] });
      if (earlier === undefined) seen.set(same, label);
    }
  })
  .meta({
    description:
      `2 to ${L.options} distinct option names (compared trimmed, case-insensitively, without invisible characters), ` +
      'each mapped to a description or null; presented to the engine in the order written, integer-like names too.',
    minProperties: 2,
    maxProperties: L.options,
  });
const ChoiceCriteria = withoutProtoKey(ChoiceOptions, 'an option name');

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

const QuestionsById = z
  .record(z.string(), SystemOneQuestion)
  .check((ctx) => {
    const ids = Object.keys(ctx.value);
    if (ids.length < 1 || ids.length > L.questions) {
      ctx.issues.push({ code: 'custom', message: `must hold 1 to ${L.questions} questions (got ${ids.length})`, input: ctx.value });
    }
    if (ids.includes('')) ctx.issues.push({ code: 'custom', message: "a question's id must not be empty", input: ctx.value, path: [''] });
    for (const id of ids.filter(hasNul)) ctx.issues.push({ code: 'custom', message: NUL_REFUSED, input: ctx.value, path: [id] });
  })
  .meta({
    description: `1 to ${L.questions} questions, keyed by ids (any non-empty string) their answers come back under.`,
    minProperties: 1,
    maxProperties: L.questions,
    propertyNames: { minLength: 1 },
  });
const Questions = withoutProtoKey(QuestionsById, 'a question id');

/** Other members are left alone: clients forward what their callers add (`assets`, `x_trace_id`, …). */
export const SystemOneRequest = z
  .object({
    model: z
      .string()
      .min(1)
      .max(200)
      .refine((model) => !hasNul(model), NUL_REFUSED)
      .optional()
      .meta({ description: 'Accepted whatever it names (`jev-latest` included); the answer names the model that answered.' }),
    state: boundedContent(L.stateChars),
    questions: Questions,
  })
  .meta({ id: 'SystemOneRequest' });
export type SystemOneRequest = z.infer<typeof SystemOneRequest>;

const probability = z.number().min(0).max(1);

/**
 * The objects inside an answer are named schemas, not inline ones: openapi-python-client
 * builds an object inside a member of a union (`SystemOneAnswer`) twice, and the second
 * time refuses it as a duplicate model, dropping the answer and POST /v1/systemone with it.
 */
const distribution = z
  .record(z.string(), probability)
  .meta({ id: 'SystemOneProbabilities', description: 'Each answer offered and its probability; values sum to 1.' });
const legend = z
  .record(z.string(), z.union([z.string(), z.array(JsonValue), z.record(z.string(), JsonValue)]))
  .meta({ id: 'SystemOneLegend', description: 'Each level as the request described it, keyed "0", "1", ….' });

export const SystemOneAnswer = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('noul'), noul: probability.meta({ description: 'The probability of yes.' }) }),
    z.strictObject({
      type: z.literal('choice'),
      choice: z.string().meta({ description: 'The most probable option (ties: the first in request order).' }),
      confidence: probability.meta({ description: '(k·pmax − 1)/(k − 1): 0 when uniform, 1 when certain.' }),
      probabilities: distribution.meta({ description: 'Keyed by option name, in request order.' }),
    }),
    z.strictObject({
      type: z.literal('score'),
      score: z.number().min(0).meta({ description: 'The expected level Σ i·pᵢ, 0 = the lowest.' }),
      confidence: probability.meta({
        description:
          '1 − Σ pᵢ·|i − mode| / the same spread of a uniform distribution, at least 0: 1 when certain, 0 when as spread as uniform.',
      }),
      legend: legend.meta({
        description: 'Each level as the request described it, keyed "0", "1", …; a null level as the number it was shown as.',
      }),
      probabilities: distribution.meta({ description: 'Keyed "0", "1", … like legend.' }),
    }),
  ])
  .meta({ id: 'SystemOneAnswer' });
export type SystemOneAnswer = z.infer<typeof SystemOneAnswer>;

export const SystemOneResponse = z
  .strictObject({
    model: z.string().meta({ description: 'The model of the engine that answered.' }),
    answers: z
      .record(z.string(), SystemOneAnswer)
      .meta({ description: 'Exactly one answer per question id of the request, in request order.' }),
    usage: z.strictObject({
      input_tokens: z.int().min(0).meta({
        description:
          "The engine's input tokens over every question: each call's count as its server reported it, else decide's own count of what it sent.",
      }),
      output_tokens: z.int().min(0).meta({ description: 'Always 0: decide reads distributions and writes nothing.' }),
    }),
  })
  .meta({ id: 'SystemOneResponse' });
export type SystemOneResponse = z.infer<typeof SystemOneResponse>;

export const ModelList = z
  .strictObject({
    models: z.array(z.strictObject({ name: z.string(), description: z.string(), release_date: z.string() })),
  })
  .meta({ id: 'ModelList' });
export type ModelList = z.infer<typeof ModelList>;
