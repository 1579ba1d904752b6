import { z } from 'zod';
import { round4 } from '../decision/outcome.js';
import { isSufficient, type EvalItem } from './item.js';
import { CHOICE_RULES, type Prediction } from './shortcuts/choice.js';
import { FEATURES, learnedCuts, questionOnly } from './shortcuts/learned.js';
import { caseOf, chanceOf, type Case } from './shortcuts/reading.js';

/**
 * Shortcut baselines of a labelled set: how well simple rules that do not read the
 * items properly (the first option, the longest, a number against a learned
 * threshold, …) answer them. An engine's accuracy means little unless it clears
 * these; a set on which a rule beats chance teaches the rule, not the task.
 *
 * Rules are scored per family (the items of one template; items without a family are
 * pooled per mode), separately on complete items and on twins (sufficient: false,
 * whose answer is what the full facts decide). A rule predicts a set of classes: the
 * item scores 1/|set| when its answer is in it, else 0; a rule that abstains scores
 * chance, 1/k. docs/eval.md, "Shortcut baselines", lists the rules.
 */

type Mode = EvalItem['mode'];
const MODES = ['choice', 'noul', 'score'] as const;

/** A rule sees the item and the other items of its family and kind (never the item itself). */
type Rule = (c: Case, others: readonly Case[]) => Prediction;

/** Yes/no and score rules: a constant answer, the question alone, or one number against learned cuts. */
const classRules = (mode: 'noul' | 'score'): Record<string, Rule> => ({
  ...(mode === 'noul'
    ? { 'always-yes': () => [0], 'always-no': () => [1] }
    : { 'always-low': () => [0], 'always-middle': () => [1], 'always-high': () => [2] }),
  'question-only': questionOnly,
  ...Object.fromEntries(
    Object.entries(FEATURES).map(([name, feature]) => [name, (c: Case, others: readonly Case[]) => learnedCuts(feature, c, others)]),
  ),
});

/** Rules that answer an item from its siblings; the others read the item alone. */
const LEARNING = new Set(['question-only', ...Object.keys(FEATURES)]);

/** Every rule of each mode, in the order reports list them. */
export const RULES: Record<Mode, Record<string, Rule>> = {
  choice: { ...CHOICE_RULES, 'question-only': questionOnly },
  noul: classRules('noul'),
  score: classRules('score'),
};

const Share = z.number().min(0).max(1);
const Best = z.object({ rule: z.string(), accuracy: Share });

/** The rules on one group of items: each rule's mean credit, and the best of them. */
export const Baseline = z.object({
  n: z.number().int().positive(),
  /** Mean of 1/k over the items: what guessing scores. */
  chance: Share,
  rules: z.record(z.string(), Share),
  /** The rule that scores most (the first listed, on a tie). */
  best: Best,
});
export type Baseline = z.infer<typeof Baseline>;

export const FamilyShortcuts = z.object({
  family: z.string(),
  mode: z.enum(MODES),
  /** Items whose context holds what decides them; null when the family has none. */
  complete: Baseline.nullable(),
  /** Items without their deciding fact, scored against what the full facts decide. */
  twins: Baseline.nullable(),
});
export type FamilyShortcuts = z.infer<typeof FamilyShortcuts>;

/**
 * A mode's complete items, the ones an engine's accuracy is measured on: the rule that
 * does best over all of them (each family answering by its own siblings), to print
 * beside the engine's accuracy, and the family a rule beats chance on by the most.
 */
export const ModeShortcuts = z.object({
  n: z.number().int().positive(),
  chance: Share,
  best: Best,
  worstFamily: z.object({ family: z.string(), rule: z.string(), accuracy: Share, chance: Share }),
});
export type ModeShortcuts = z.infer<typeof ModeShortcuts>;

export const ShortcutReport = z.object({
  families: z.array(FamilyShortcuts),
  modes: z.object({ choice: ModeShortcuts.nullable(), noul: ModeShortcuts.nullable(), score: ModeShortcuts.nullable() }),
});
export type ShortcutReport = z.infer<typeof ShortcutReport>;

/** The family an item is scored in: its own, or its mode's pool of items without one. */
export const familyOf = (item: EvalItem): string => item.family ?? `(no family) ${item.mode}`;

/**
 * What the rules read off one item by itself: the classes picked by each rule that
 * reads the item alone, and (yes/no and score) the numbers the learning rules compare.
 * Siblings with equal readings and different answers are alike to every rule, so on
 * a group whose answers are each class once, every rule scores chance or less.
 */
export function shortcutReading(item: EvalItem): { picks: Record<string, string[] | null>; numbers: Record<string, number | null> } {
  const c = caseOf(item);
  const alone = Object.entries(RULES[item.mode]).filter(([name]) => !LEARNING.has(name));
  return {
    picks: Object.fromEntries(alone.map(([name, rule]) => [name, rule(c, [])?.map((i) => c.classes[i]) ?? null])),
    numbers: item.mode === 'choice' ? {} : Object.fromEntries(Object.entries(FEATURES).map(([name, feature]) => [name, feature(c)])),
  };
}

/** What one rule earns on an item: 1/|set| when the answer is among the set it picks; chance when it abstains. */
export function credit(c: Case, prediction: Prediction): number {
  if (prediction === null || prediction.length === 0) return chanceOf(c);
  return prediction.includes(c.answer) ? 1 / prediction.length : 0;
}

interface Scored {
  n: number;
  chance: number;
  /** Summed credit per rule (divide by n for the accuracy). */
  sums: Record<string, number>;
}

/** Every rule on one group, leave-one-out for the rules that learn. */
function scoreGroup(mode: Mode, cases: readonly Case[]): Scored {
  const rules = RULES[mode];
  const sums = Object.fromEntries(Object.keys(rules).map((name) => [name, 0]));
  cases.forEach((c, i) => {
    const others = cases.filter((_, j) => j !== i);
    for (const [name, rule] of Object.entries(rules)) sums[name] += credit(c, rule(c, others));
  });
  return { n: cases.length, chance: cases.reduce((sum, c) => sum + chanceOf(c), 0), sums };
}

function baseline(scored: Scored): Baseline | null {
  if (scored.n === 0) return null;
  const rules = Object.fromEntries(Object.entries(scored.sums).map(([name, sum]) => [name, round4(sum / scored.n)]));
  const [rule, accuracy] = Object.entries(rules).reduce((best, entry) => (entry[1] > best[1] ? entry : best));
  return { n: scored.n, chance: round4(scored.chance / scored.n), rules, best: { rule, accuracy } };
}

/** The shortcut baselines of a set: per family (complete items and twins), and per mode. */
export function shortcutBaselines(items: readonly EvalItem[]): ShortcutReport {
  const groups = new Map<string, { family: string; mode: Mode; complete: Case[]; twins: Case[] }>();
  for (const item of items) {
    const family = familyOf(item);
    const key = JSON.stringify([item.mode, family]);
    const group = groups.get(key) ?? { family, mode: item.mode, complete: [], twins: [] };
    (isSufficient(item) ? group.complete : group.twins).push(caseOf(item));
    groups.set(key, group);
  }
  const ordered = [...groups.values()].sort(
    (a, b) => MODES.indexOf(a.mode) - MODES.indexOf(b.mode) || (a.family < b.family ? -1 : a.family > b.family ? 1 : 0),
  );
  const scored = ordered.map((g) => ({ ...g, complete: scoreGroup(g.mode, g.complete), twins: scoreGroup(g.mode, g.twins) }));
  const families = scored.map((g) => ({ family: g.family, mode: g.mode, complete: baseline(g.complete), twins: baseline(g.twins) }));
  const modes = Object.fromEntries(
    MODES.map((mode) => [
      mode,
      modeSummary(
        mode,
        scored.filter((g) => g.mode === mode),
      ),
    ]),
  ) as ShortcutReport['modes'];
  return { families, modes };
}

function modeSummary(mode: Mode, groups: readonly { family: string; complete: Scored }[]): ModeShortcuts | null {
  const present = groups.filter((g) => g.complete.n > 0);
  if (present.length === 0) return null;
  const n = present.reduce((sum, g) => sum + g.complete.n, 0);
  const pooled: Scored = {
    n,
    chance: present.reduce((sum, g) => sum + g.complete.chance, 0),
    sums: Object.fromEntries(Object.keys(RULES[mode]).map((name) => [name, present.reduce((sum, g) => sum + g.complete.sums[name], 0)])),
  };
  const { chance, best } = baseline(pooled)!;
  const worst = present
    .map((g) => ({ family: g.family, ...baseline(g.complete)! }))
    .reduce((a, b) => (b.best.accuracy - b.chance > a.best.accuracy - a.chance ? b : a));
  return {
    n,
    chance,
    best,
    worstFamily: { family: worst.family, rule: worst.best.rule, accuracy: worst.best.accuracy, chance: worst.chance },
  };
}
