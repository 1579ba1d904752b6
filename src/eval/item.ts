import fs from 'node:fs';
import { z } from 'zod';
import { ChoiceRequest, describeIssues, NoulRequest, ScoreRequest, type DecisionRequest } from '../contract/index.js';
import { contextWithout, splitFacts } from '../decision/facts.js';

/**
 * One labelled item of an evaluation set (docs/eval.md): a decision request without
 * `depth`, the answer the facts decide, and optionally the fact that decides it.
 * The request's bounds are the API's own: an item the service would refuse cannot
 * measure it.
 */

const id = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const decisiveFact = z.string().trim().min(1, 'must not be empty').optional();
const sufficient = z.boolean().optional();
/** Siblings made from one template share a family: one half holds them all (halves.ts). */
const family = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional();

const ChoiceItem = ChoiceRequest.omit({ depth: true }).extend({ id, answer: z.string().trim(), decisiveFact, sufficient, family });
const NoulItem = NoulRequest.omit({ depth: true }).extend({ id, answer: z.boolean(), decisiveFact, sufficient, family });
const ScoreItem = ScoreRequest.omit({ depth: true }).extend({ id, answer: z.string().trim(), decisiveFact, sufficient, family });

export const EvalItem = z
  .discriminatedUnion('mode', [ChoiceItem, NoulItem, ScoreItem], {
    error: (issue) => (issue.code === 'invalid_union' ? 'must be one of choice, noul, score' : undefined),
  })
  .check((ctx) => {
    const item = ctx.value;
    const problem = (path: string, message: string) => ctx.issues.push({ code: 'custom', message, input: item, path: [path] });
    if (item.mode === 'choice' && !item.options.includes(item.answer))
      problem('answer', 'must be one of the options, spelled as in options');
    if (item.mode === 'score' && !item.levels.includes(item.answer)) problem('answer', 'must be one of the levels, spelled as in levels');
    if (item.decisiveFact !== undefined) {
      const fact = splitFacts(item.context).find((f) => f.text === item.decisiveFact);
      if (!fact) problem('decisiveFact', 'must be one sentence (or list item) of context, copied exactly');
      else if ([...contextWithout(item.context, fact)].length < 20) {
        problem('decisiveFact', 'leaves fewer than 20 characters of context when removed');
      }
    }
  });
export type EvalItem = z.infer<typeof EvalItem>;

/** `sufficient` defaults to true: the context holds what decides the answer. */
export const isSufficient = (item: EvalItem): boolean => item.sufficient !== false;

/** The decision request of an item, in its own order, at standard depth. */
export function requestOf(item: EvalItem): DecisionRequest {
  switch (item.mode) {
    case 'choice':
      return { mode: 'choice', question: item.question, context: item.context, options: item.options, depth: 'standard' };
    case 'noul':
      return { mode: 'noul', question: item.question, context: item.context, depth: 'standard' };
    case 'score':
      return { mode: 'score', question: item.question, context: item.context, levels: item.levels, depth: 'standard' };
  }
}

/** The context without the item's decisive fact (validated to exist), or null when it has none. */
export function contextWithoutDecisiveFact(item: EvalItem): string | null {
  if (item.decisiveFact === undefined) return null;
  const fact = splitFacts(item.context).find((f) => f.text === item.decisiveFact);
  return fact ? contextWithout(item.context, fact) : null;
}

/** A line of a set that is not an item: where, and what is wrong with it. */
export class SetError extends Error {
  constructor(
    readonly file: string,
    /** 1-based; null for a problem of the whole file. */
    readonly line: number | null,
    problem: string,
  ) {
    super(line === null ? `${file}: ${problem}` : `${file}, line ${line}: ${problem}`);
    this.name = 'SetError';
  }
}

/** Parses a JSON Lines set; blank lines are skipped, the first bad line throws a SetError. */
export function parseSet(text: string, file: string): EvalItem[] {
  const items: EvalItem[] = [];
  const ids = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new SetError(file, line, `not valid JSON (${(error as Error).message})`);
    }
    const parsed = EvalItem.safeParse(value);
    if (!parsed.success) throw new SetError(file, line, describeIssues(parsed.error));
    const earlier = ids.get(parsed.data.id);
    if (earlier !== undefined) throw new SetError(file, line, `id: "${parsed.data.id}" is already the id of line ${earlier}`);
    ids.set(parsed.data.id, line);
    items.push(parsed.data);
  });
  return items;
}

export function readSet(file: string): EvalItem[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new SetError(file, null, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const items = parseSet(text, file);
  if (items.length === 0) throw new SetError(file, null, 'holds no items');
  return items;
}
