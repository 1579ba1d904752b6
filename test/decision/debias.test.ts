import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DecisionRequest } from '../../src/contract/index.js';
import { average, ordersFor, readAveraged, reversedReading } from '../../src/decision/debias.js';
import { shownOrder } from '../../src/decision/orders.js';
import { mainQuestion } from '../../src/decision/questions.js';
import { runDecision } from '../../src/decision/run.js';
import { createSystemOneEngine } from '../../src/engine/systemone.js';
import { choiceAnswer, noulAnswer, scoreAnswer, startSystemOneFake, type SystemOneFake } from '../fakes/systemone-fake.js';
import { scaled } from '../support/time.js';

const context = 'The team has four engineers. Two know Rust. The deadline is in March. The budget allows one hire.';
const choice = DecisionRequest.parse({
  mode: 'choice',
  question: 'Which language should we use?',
  context,
  options: ['Rust', 'Go', 'TypeScript'],
});
const score = DecisionRequest.parse({
  mode: 'score',
  question: 'How risky is the March deadline?',
  context,
  levels: ['low', 'medium', 'high'],
});
const noul = DecisionRequest.parse({ mode: 'noul', question: 'Should we hire a fifth engineer?', context });

describe('order debiasing: the orders and the average', () => {
  it('none asks once; reverse adds the reversed order; cyclic puts every answer in every place', () => {
    expect(ordersFor([0, 1, 2], 'none')).toEqual([[0, 1, 2]]);
    expect(ordersFor([0, 1, 2], 'reverse')).toEqual([
      [0, 1, 2],
      [2, 1, 0],
    ]);
    expect(ordersFor([0, 1, 2], 'cyclic')).toEqual([
      [0, 1, 2],
      [1, 2, 0],
      [2, 0, 1],
    ]);
    // Two answers have two orders whichever way.
    expect(ordersFor([0, 1], 'cyclic')).toEqual([
      [0, 1],
      [1, 0],
    ]);
    expect(reversedReading(ordersFor([0, 1, 2], 'reverse'))).toBe(1);
    expect(reversedReading(ordersFor([0, 1, 2], 'cyclic'))).toBe(-1);
    expect(reversedReading(ordersFor([0, 1], 'cyclic'))).toBe(1);
  });

  it('every order rearranges the shown one: a choice shows its options sorted, whatever order the request lists them in', () => {
    const shown = shownOrder(mainQuestion(choice));
    // Rust, Go, TypeScript as requested; Go, Rust, TypeScript as shown.
    expect(shown).toEqual([1, 0, 2]);
    expect(ordersFor(shown, 'reverse')).toEqual([
      [1, 0, 2],
      [2, 0, 1],
    ]);
    expect(ordersFor(shown, 'cyclic')).toEqual([
      [1, 0, 2],
      [0, 2, 1],
      [2, 1, 0],
    ]);
    expect(reversedReading(ordersFor(shown, 'reverse'))).toBe(1);
    // A scale keeps its levels low to high, yes/no its Yes first: their order says something.
    expect(shownOrder(mainQuestion(DecisionRequest.parse({ ...score, levels: ['high', 'low', 'medium'] })))).toEqual([0, 1, 2]);
    expect(shownOrder(mainQuestion(noul))).toEqual([0, 1]);
  });

  it('reads each order back into request order and averages them', () => {
    const orders = ordersFor([0, 1, 2], 'cyclic');
    // A model that gives 0.6 to whatever it is shown first, 0.3 second, 0.1 third.
    const answers = Object.fromEntries(
      orders.map((_order, j) => [j === 0 ? 'main' : `main-${j}`, { type: 'score' as const, probabilities: [0.6, 0.3, 0.1] }]),
    );
    const reading = readAveraged(score, answers, orders);
    expect(reading.mode === 'score' && reading.p.map((p) => +p.toFixed(10))).toEqual([1 / 3, 1 / 3, 1 / 3].map((p) => +p.toFixed(10)));
    expect(mainQuestion(score, orders[1])).toMatchObject({ criteria: ['medium', 'high', 'low'] });
    expect(
      average([
        { mode: 'noul', yes: 0.9 },
        { mode: 'noul', yes: 0.5 },
      ]),
    ).toEqual({ mode: 'noul', yes: 0.7 });
  });
});

describe('order debiasing through an engine', () => {
  let fake: SystemOneFake;
  const engine = () => createSystemOneEngine({ baseUrl: fake.url, model: 'm', timeoutMs: scaled(5_000) });
  beforeAll(async () => {
    fake = await startSystemOneFake();
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.respond();
    fake.requests.length = 0;
  });

  /** A model with a pure position bias: 0.7 to the answer shown first, whatever it says. */
  const firstPlaceWins = () =>
    fake.respond(() => ({
      answer: (_id, question) => {
        if (question.type === 'noul') return noulAnswer(Object.keys(question.criteria ?? { true: 1 })[0] === 'true' ? 0.7 : 0.3);
        const labels: string[] = question.type === 'choice' ? Object.keys(question.criteria) : question.criteria;
        const p = labels.map((_, i) => (i === 0 ? 0.7 : 0.3 / (labels.length - 1)));
        return question.type === 'choice' ? choiceAnswer(Object.fromEntries(labels.map((l, i) => [l, p[i]]))) : scoreAnswer(p, labels);
      },
    }));

  it('without debiasing, the position bias is the answer', async () => {
    firstPlaceWins();
    const outcome = await runDecision(DecisionRequest.parse({ ...noul }), engine(), { signal: AbortSignal.timeout(scaled(5_000)) });
    expect(outcome.result).toEqual({ yesProbability: 0.7 });
    expect(Object.keys(fake.requests[0].body.questions)).toEqual(['main', 'sufficiency']);
  });

  it('a choice is asked the same whatever order the request lists its options in, so its answer is the same', async () => {
    firstPlaceWins();
    const answers = [];
    for (const options of [
      ['Rust', 'Go', 'TypeScript'],
      ['TypeScript', 'Rust', 'Go'],
      ['Go', 'TypeScript', 'Rust'],
    ]) {
      const outcome = await runDecision(DecisionRequest.parse({ ...choice, options }), engine(), {
        signal: AbortSignal.timeout(scaled(5_000)),
      });
      answers.push(outcome.result);
    }
    const asked = fake.requests.map((r) => JSON.stringify(r.body.questions));
    expect(new Set(asked).size).toBe(1);
    // The bias toward the first place goes to the first option sorted, whichever the request put first.
    for (const result of answers)
      expect(result).toMatchObject({ selected: 'Go', probabilities: { Go: 0.7, Rust: 0.15, TypeScript: 0.15 } });
  });

  it('reverse: both orders in one call, averaged; the bias cancels', async () => {
    firstPlaceWins();
    const outcome = await runDecision(noul, engine(), { signal: AbortSignal.timeout(scaled(5_000)), debias: 'reverse' });
    expect(fake.requests).toHaveLength(1);
    const asked = fake.requests[0].body.questions;
    expect(Object.keys(asked)).toEqual(['main', 'main-1', 'sufficiency', 'sufficiency-1']);
    expect(Object.keys(asked['main-1'].criteria)).toEqual(['false', 'true']);
    expect(Object.keys(asked['sufficiency-1'].criteria)).toEqual(['false', 'true']);
    expect(outcome.result).toEqual({ yesProbability: 0.5 });
  });

  it('reverse: a probe that follows the place it is shown at does not send the context back; one that says no both ways does', async () => {
    firstPlaceWins();
    // Yes first reads 0.7, No first 0.3: their mean, 0.5, says nothing of the context, and
    // a hair below it would be needs-context; the surer yes of the two stands.
    const following = await runDecision(noul, engine(), { signal: AbortSignal.timeout(scaled(5_000)), debias: 'reverse' });
    expect(following.contextSufficiency).toBe(0.7);
    expect(following.signal).not.toBe('needs-context');

    // A probe that reads the context as lacking says no in either order: 0.2 and 0.35.
    fake.respond(() => ({
      answer: (id, question) =>
        id.startsWith('sufficiency') ? noulAnswer(Object.keys(question.criteria ?? {})[0] === 'true' ? 0.35 : 0.2) : noulAnswer(0.8),
    }));
    const lacking = await runDecision(noul, engine(), { signal: AbortSignal.timeout(scaled(5_000)), debias: 'reverse' });
    expect(lacking.contextSufficiency).toBe(0.35);
    expect(lacking.signal).toBe('needs-context');

    // Without debiasing the probe is asked once, Yes first, and read as it is.
    const once = await runDecision(noul, engine(), { signal: AbortSignal.timeout(scaled(5_000)) });
    expect(once.contextSufficiency).toBe(0.35);
  });

  it('cyclic: every option in every place; the bias cancels for three options', async () => {
    firstPlaceWins();
    const outcome = await runDecision(choice, engine(), { signal: AbortSignal.timeout(scaled(5_000)), debias: 'cyclic' });
    expect(Object.keys(fake.requests[0].body.questions)).toEqual(['main', 'main-1', 'main-2', 'sufficiency', 'sufficiency-1']);
    expect(outcome.result).toMatchObject({ probabilities: { Rust: 0.3334, Go: 0.3333, TypeScript: 0.3333 } });
    expect(outcome.signal).toBe('unclear');
  });

  it('stress with reverse: the reversed check is the reversed reading (no question of its own), each fact asked in both orders', async () => {
    firstPlaceWins();
    const outcome = await runDecision(DecisionRequest.parse({ ...choice, depth: 'stress' }), engine(), {
      signal: AbortSignal.timeout(scaled(5_000)),
      debias: 'reverse',
    });
    const base = fake.requests.find((r) => r.body.state === context)!.body.questions;
    expect(Object.keys(base)).toEqual(['main', 'main-1', 'sufficiency', 'sufficiency-1']);
    const withoutFact = fake.requests.filter((r) => r.body.state !== context);
    expect(withoutFact).toHaveLength(4);
    for (const r of withoutFact) expect(Object.keys(r.body.questions)).toEqual(['main', 'main-1']);
    const reversed = outcome.stress!.checks[0];
    // Shown sorted (Go, Rust, TypeScript) and reversed: the reversed reading alone gives
    // TypeScript, shown first there, 0.7; the debiased base ties Go and TypeScript.
    expect(reversed).toMatchObject({ kind: 'reversed', agrees: false, result: { selected: 'TypeScript' } });
    expect(outcome.result).toMatchObject({ probabilities: { Rust: 0.15, Go: 0.425, TypeScript: 0.425 } });
  });
});
