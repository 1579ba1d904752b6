import { z } from 'zod';
import { normalise } from './distribution.js';
import { EngineError } from './engine.js';

/**
 * Stated ("verbalised") probabilities, for providers that return no logprobs: the
 * Anthropic Messages API, and OpenAI-compatible servers with
 * DECIDE_OPENAI_PROBABILITIES=verbalized. The model fills one number per short label
 * (A, B, … / 1, 2, 3 / Yes, No) of a JSON schema, through a forced tool call or a
 * json_schema response format; this module builds that schema and validates and
 * renormalises what comes back, identically for every such engine.
 *
 * The property names are the short labels, never the option texts: they keep the
 * schema valid for providers that restrict property names (Anthropic allows
 * `^[a-zA-Z0-9_.-]{1,64}$`), and the texts stay in the prompt where order is visible.
 */

export type ProbabilitySchema = {
  type: 'object';
  properties: Record<string, { type: 'number'; description: string }>;
  required: string[];
  additionalProperties: false;
};

/**
 * Every label required and nothing else allowed, as OpenAI's `strict` mode demands.
 * No `minimum`/`maximum`: strict json_schema support for them varies by server, and
 * the answer is checked here anyway.
 */
export function probabilitySchema(labels: readonly string[]): ProbabilitySchema {
  return {
    type: 'object',
    properties: Object.fromEntries(
      labels.map((label) => [label, { type: 'number', description: `Probability, from 0 to 1, that ${label} is the right answer` }]),
    ),
    required: [...labels],
    additionalProperties: false,
  };
}

/**
 * Room for the stated probabilities of `labels` labels, not for an essay: 256 tokens
 * (six labels with white space to spare) up to 20 labels, then 12 a label more
 * (`"AB": 0.0039, ` is about 8 tokens), so 255 options may take 2,836.
 */
export function statedMaxTokens(labels: number): number {
  return 256 + 12 * Math.max(0, labels - 20);
}

const LONGEST_QUOTE = 40;

/** Model output quoted in an error, cut short: it is the model's text, not ours. */
function quote(value: unknown): string {
  // JSON.stringify would write Infinity (a `1e999` on the wire) as null.
  const text = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  return text.length > LONGEST_QUOTE ? `${text.slice(0, LONGEST_QUOTE)}…` : text;
}

/** How far the stated numbers may sum from 1 (or from 100, as per cent) and still be read as probabilities. */
export const SUM_TOLERANCE = 0.1;

/**
 * The stated probabilities of `labels`, in label order, renormalised to sum to 1.
 * They must be probabilities: every one in [0, 1] summing to 1 within ±10 %, or every
 * one in [0, 100] summing to 100 within ±10 % (models write 70/30 as readily as
 * 0.7/0.3). Every label must have one and no other key may appear. Anything else,
 * arbitrary weights included (renormalising 7.7e15 against 7.3e15 would pass off a
 * model's confusion as a 51 % answer), is `bad_response`; `hint` says what the
 * setting that chose this way of reading asks of the model.
 */
export function statedDistribution(input: unknown, labels: readonly string[], provider: string, id: string, hint = ''): number[] {
  const bad = (problem: string) =>
    new EngineError('bad_response', `${provider} engine's answer to "${id}" ${problem}${hint && ` (${hint})`}`);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw bad(`is ${quote(input)}, not an object of probabilities`);
  }
  const shape = Object.fromEntries(labels.map((label) => [label, z.number().nonnegative()]));
  const parsed = z.strictObject(shape).safeParse(input);
  if (!parsed.success) {
    const record = input as Record<string, unknown>;
    const missing = labels.filter((label) => !Object.hasOwn(record, label));
    if (missing.length > 0) throw bad(`gives no probability for ${missing.map((l) => `"${l}"`).join(', ')}`);
    const offered = new Set(labels);
    const unknown = Object.keys(record).filter((key) => !offered.has(key));
    if (unknown.length > 0) throw bad(`gives probabilities for labels it was not offered: ${unknown.map(quote).join(', ')}`);
    const wrong = labels.find((label) => !z.number().nonnegative().safeParse(record[label]).success) ?? labels[0];
    throw bad(`gives "${wrong}" ${quote(record[wrong])}, which is not a probability`);
  }
  const stated = labels.map((label) => parsed.data[label] as number);
  const sum = stated.reduce((a, b) => a + b, 0);
  if (sum === 0) throw bad('puts no usable mass on any label');
  // The slack keeps 0.6 + 0.3 (0.8999…) within 10 % of 1, as written.
  const within = (scale: number) => stated.every((p) => p <= scale) && Math.abs(sum - scale) <= SUM_TOLERANCE * scale * (1 + 1e-9);
  if (!within(1) && !within(100)) {
    throw bad(
      `states ${quote(Object.fromEntries(labels.map((l, i) => [l, stated[i]])))}, which are not probabilities: they must sum to 1 (or 100, as per cent) within 10 %`,
    );
  }
  const distribution = normalise(stated);
  if (!distribution) throw bad('puts no usable mass on any label');
  return distribution;
}
