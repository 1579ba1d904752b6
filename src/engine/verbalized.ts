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

const LONGEST_QUOTE = 40;

/** Model output quoted in an error, cut short: it is the model's text, not ours. */
function quote(value: unknown): string {
  // JSON.stringify would write Infinity (a `1e999` on the wire) as null.
  const text = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  return text.length > LONGEST_QUOTE ? `${text.slice(0, LONGEST_QUOTE)}…` : text;
}

/**
 * The stated probabilities of `labels`, in label order, renormalised to sum to 1.
 * Weights need not sum to 1 (models write 70/30 as readily as 0.7/0.3), but each must
 * be a finite number ≥ 0, every label must have one, no other key may appear, and
 * some label must get mass; anything else is `bad_response`.
 */
export function statedDistribution(input: unknown, labels: readonly string[], provider: string, id: string): number[] {
  const bad = (problem: string) => new EngineError('bad_response', `${provider} engine's answer to "${id}" ${problem}`);
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
  const distribution = normalise(labels.map((label) => parsed.data[label] as number));
  if (!distribution) throw bad('puts no usable mass on any label');
  return distribution;
}
