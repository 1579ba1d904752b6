import { splitFacts } from '../../src/decision/facts.js';
import type { EvalItem } from '../../src/eval/item.js';
import { fnv1a, mulberry32 } from './http-fake.js';
import { choiceAnswer, noulAnswer, scoreAnswer, startSystemOneFake, type SystemOneFake } from './systemone-fake.js';

/**
 * A decision model with known faults, served over System One: it knows a labelled
 * set's answers and answers with a chosen accuracy, miscalibration and biases, so an
 * evaluation (or a calibration) can be checked to report those faults back.
 *
 * Per item (deterministic from the seed and the item's id), on a context that holds
 * what decides it: a latent confidence c, uniform around `accuracy`; the top answer
 * is the right one for a share c of the items at c (else a wrong one), holding c,
 * the rest sharing 1 − c. Before any fault that is calibrated by construction. On a
 * context lacking the deciding fact the model guesses: one class holds
 * 1/k + (1 − 1/k)·guessConfidence, the rest share what is left.
 *
 * Then the faults, on log-probabilities: divided by `temperature` (below 1 sharpens:
 * overconfidence; above 1 flattens: underconfidence), plus a log-weight on some
 * classes: by the place they are presented in (first, last, interior) or by what
 * they are (yes, a score's middle level) whatever their place. A log-weight b on one
 * class multiplies its odds against every other class by e^b and leaves the odds
 * between the others as they were. The sufficiency question is answered
 * 0.5 ± separation/2 by whether the context holds the deciding fact, with a little
 * per-context jitter.
 */

export interface SimulatedFaults {
  /** Expected share of right top answers before bias, in (0.5, 0.99]. */
  accuracy: number;
  /** 1 = calibrated; below 1, overconfident; above 1, underconfident. */
  temperature: number;
  /** Log-weight added to the first presented label (0 = none). */
  positionBias: number;
  /** How far apart the sufficiency answers of sufficient and insufficient contexts sit (0 to 0.9). */
  sufficiencySeparation: number;
  /** Log-weight added to the last presented label (recency), default 0. */
  lastPlaceBias?: number;
  /** Log-weight added to every presented label neither first nor last (only with 3 or more), default 0. */
  middlePlaceBias?: number;
  /** Log-weight added to "yes" of a yes/no question, whether Yes or No is presented first; default 0. */
  yesBias?: number;
  /** Log-weight added to a score question's middle level, wherever it is presented; default 0. */
  middleLevelBias?: number;
  /**
   * On a context lacking the deciding fact: `fixed` (default), one guess per item
   * whatever else is cut; `shifting`, a guess of its own for each context text, so
   * cutting one more fact can move it.
   */
  guesses?: 'fixed' | 'shifting';
  /** How sure a guess is, from 0 (uniform) toward 1 (certain); default 0.15. */
  guessConfidence?: number;
  /**
   * Noise of the reading itself: a log-weight drawn in [−jitter, jitter] for each class,
   * of its own for each context text and presentation order, as a small model's
   * reading moves with any change of its prompt; default 0.
   */
  jitter?: number;
  seed?: number;
}

type Classes = readonly string[];

const classesOf = (item: EvalItem): Classes =>
  item.mode === 'choice' ? item.options : item.mode === 'score' ? item.levels : ['yes', 'no'];
const answerOf = (item: EvalItem): number => (item.mode === 'noul' ? (item.answer ? 0 : 1) : classesOf(item).indexOf(item.answer));

function uniform(seed: number, ...parts: string[]): number {
  return mulberry32(fnv1a(JSON.stringify([seed, ...parts])))();
}

/** The item a (question, context) pair asks about, and whether that context holds what decides it. */
function lookup(candidates: readonly EvalItem[], state: string): { item: EvalItem; sufficient: boolean } | null {
  const exact = candidates.find((item) => item.context === state);
  if (exact) return { item: exact, sufficient: exact.sufficient !== false };
  // A context cut from an item's (a stress check leaves out one fact) belongs to that
  // item: several items may ask the same question of different facts.
  const within = (item: EvalItem) => splitFacts(state).every((fact) => item.context.includes(fact.text));
  const original = candidates.find((item) => item.decisiveFact !== undefined && within(item));
  if (original) {
    // A context lacking the deciding fact is read as the set's twin, if it has one, so
    // the twin and its variants (a stress check leaving out one more fact) are one
    // item; whether they guess alike is the `guesses` fault's to say.
    if (state.includes(original.decisiveFact!)) return { item: original, sufficient: true };
    return { item: candidates.find((item) => item.sufficient === false && within(item)) ?? original, sufficient: false };
  }
  return candidates[0] ? { item: candidates[0], sufficient: candidates[0].sufficient !== false } : null;
}

/**
 * The labels of a System One question in the order the engine presented them, as the
 * item's class indices. A yes/no question presents its criteria's keys in order:
 * `{ true, false }` is Yes first, `{ false, true }` No first.
 */
export function presentedOrder(item: EvalItem, question: { type: string; criteria?: unknown }): number[] {
  if (question.type === 'noul') return Object.keys(question.criteria ?? { true: 1, false: 1 }).map((key) => (key === 'true' ? 0 : 1));
  const labels = question.type === 'choice' ? Object.keys(question.criteria as object) : (question.criteria as string[]);
  return labels.map((label) => classesOf(item).indexOf(label));
}

/**
 * The simulated model over one set. Which items it gets right is fixed up front, per
 * mode, by error diffusion over the items sorted by their latent confidence: a
 * running sum of c marks an item right each time it passes a whole number. So the
 * share right among the items stated at about c is c not only on average but in
 * every stretch of confidences, and a mode of 80 items is calibrated as stated
 * rather than within sampling noise of it.
 */
export class SimulatedModel {
  private readonly right = new Map<string, boolean>();
  private readonly confidence = new Map<string, number>();

  constructor(
    set: readonly EvalItem[],
    readonly faults: SimulatedFaults,
  ) {
    const seed = faults.seed ?? 1;
    const spread = Math.min(0.15, 0.99 - faults.accuracy, faults.accuracy - 0.5);
    for (const item of set) this.confidence.set(item.id, faults.accuracy + spread * (2 * uniform(seed, item.id, 'c') - 1));
    for (const mode of ['choice', 'noul', 'score']) {
      const sufficient = set.filter((item) => item.mode === mode && item.sufficient !== false);
      const sorted = sufficient.sort((a, b) => this.confidence.get(a.id)! - this.confidence.get(b.id)! || (a.id < b.id ? -1 : 1));
      let sum = 0.5;
      for (const item of sorted) {
        sum += this.confidence.get(item.id)!;
        this.right.set(item.id, sum >= 1);
        if (sum >= 1) sum -= 1;
      }
    }
  }

  /**
   * The distribution over the item's classes (item order), given whether the context
   * holds the deciding fact, the order the classes were presented in (class indices,
   * first presented first), and the context's text (which a `shifting` guess reads).
   */
  distribution(item: EvalItem, sufficient: boolean, presented: readonly number[], state: string = item.context): number[] {
    const { faults } = this;
    const seed = faults.seed ?? 1;
    const k = classesOf(item).length;
    const answer = answerOf(item);
    let top: number;
    let c: number;
    if (sufficient) {
      c = this.confidence.get(item.id) ?? faults.accuracy;
      const others = [...Array(k).keys()].filter((i) => i !== answer);
      top = (this.right.get(item.id) ?? true) ? answer : others[Math.floor(uniform(seed, item.id, 'wrong') * others.length)];
    } else {
      c = 1 / k + (1 - 1 / k) * (faults.guessConfidence ?? 0.15);
      const guess = faults.guesses === 'shifting' ? uniform(seed, item.id, state, 'guess') : uniform(seed, item.id, 'guess');
      top = Math.floor(guess * k);
    }
    const logits = [...Array(k).keys()].map((i) => Math.log(i === top ? c : (1 - c) / (k - 1)) / faults.temperature);
    for (const [i, weight] of this.weights(item, presented)) logits[i] += weight;
    const jitter = faults.jitter ?? 0;
    if (jitter > 0)
      for (let i = 0; i < k; i++) logits[i] += jitter * (2 * uniform(seed, item.id, state, presented.join(), 'jitter', String(i)) - 1);
    const max = Math.max(...logits);
    const weights = logits.map((l) => Math.exp(l - max));
    const sum = weights.reduce((a, b) => a + b, 0);
    return weights.map((w) => w / sum);
  }

  /** The biases' log-weights, as [class, weight] pairs: by presented place, then by class. */
  private weights(item: EvalItem, presented: readonly number[]): Array<[number, number]> {
    const { faults } = this;
    const last = presented.length - 1;
    return [
      [presented[0], faults.positionBias],
      [presented[last], faults.lastPlaceBias ?? 0],
      ...presented.slice(1, last).map((i): [number, number] => [i, faults.middlePlaceBias ?? 0]),
      ...(item.mode === 'noul' ? [[0, faults.yesBias ?? 0] as [number, number]] : []),
      ...(item.mode === 'score' ? [[1, faults.middleLevelBias ?? 0] as [number, number]] : []),
    ];
  }
}

/** A System One server answering as the simulated model would, for the items of `set`. */
export function startSimulatedModel(set: readonly EvalItem[], faults: SimulatedFaults): Promise<SystemOneFake> {
  const model = new SimulatedModel(set, faults);
  const byQuestion = new Map<string, EvalItem[]>();
  for (const item of set) byQuestion.set(item.question, [...(byQuestion.get(item.question) ?? []), item]);
  const seed = faults.seed ?? 1;

  const answer = (id: string, question: any, state: string): unknown => {
    // The question follows a colon and ends its line, in the main question and the probe alike.
    const asked = /: (.*)$/m.exec(String(question.instructions ?? '').split('\n')[0])?.[1];
    // Items may share a question and differ in their options or levels: only those the engine presented qualify.
    const labels =
      question.type === 'choice' ? Object.keys(question.criteria) : question.type === 'score' ? (question.criteria as string[]) : null;
    const same = (item: EvalItem) => labels === null || [...classesOf(item)].sort().join('\n') === [...labels].sort().join('\n');
    const found = asked === undefined ? null : lookup((byQuestion.get(asked) ?? []).filter(same), state);
    if (!found) return { type: question.type, error: 'the simulated model does not know this question' };
    const { item, sufficient } = found;
    if (id.startsWith('sufficiency')) {
      const jitter = 0.1 * (uniform(seed, state, 'jitter') - 0.5);
      return noulAnswer(0.5 + (sufficient ? 1 : -1) * (faults.sufficiencySeparation / 2) + jitter);
    }
    const classes = classesOf(item);
    const presented = presentedOrder(item, question);
    const p = model.distribution(item, sufficient, presented, state);
    if (question.type === 'noul') return noulAnswer(p[0]);
    if (question.type === 'choice') return choiceAnswer(Object.fromEntries(classes.map((label, i) => [label, p[i]])));
    return scoreAnswer(
      presented.map((i) => p[i]),
      question.criteria,
    );
  };
  return startSystemOneFake((body) => ({ answer: (id, question) => answer(id, question, body.state) }));
}
