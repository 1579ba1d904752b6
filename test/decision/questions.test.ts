import { describe, expect, it } from 'vitest';
import { DecisionRequest } from '../../src/contract/decision.js';
import { weigh } from '../../src/decision/outcome.js';
import { reversedOrder } from '../../src/decision/orders.js';
import { mainQuestion, readMain, readYes, sufficiencyQuestion } from '../../src/decision/questions.js';
import { EngineError } from '../../src/engine/engine.js';

const context = 'The team has four engineers. Two of them know Rust. The deadline is in March.';
const choice = DecisionRequest.parse({
  mode: 'choice',
  question: '  Which language should the new service use?  ',
  context,
  options: ['Rust', ' Go ', 'TypeScript'],
});
const score = DecisionRequest.parse({
  mode: 'score',
  question: 'How risky is the March deadline?',
  context,
  levels: ['low', 'medium', 'high'],
  depth: 'stress',
});
const noul = DecisionRequest.parse({ mode: 'noul', question: 'Should we hire a fifth engineer?', context });

describe('questions', () => {
  it('presents choice options in request order, or reversed', () => {
    expect(mainQuestion(choice)).toMatchObject({
      type: 'choice',
      criteria: [
        { label: 'Rust', description: null },
        { label: 'Go', description: null },
        { label: 'TypeScript', description: null },
      ],
    });
    const labels = (q: unknown) => (q as { criteria: { label: string }[] }).criteria.map((c) => c.label);
    expect(labels(mainQuestion(choice))).toEqual(['Rust', 'Go', 'TypeScript']);
    expect(labels(mainQuestion(choice, reversedOrder(3)))).toEqual(['TypeScript', 'Go', 'Rust']);
  });

  it('presents score levels low to high, or reversed', () => {
    expect(mainQuestion(score)).toMatchObject({ type: 'score', criteria: ['low', 'medium', 'high'] });
    expect(mainQuestion(score, reversedOrder(3))).toMatchObject({ type: 'score', criteria: ['high', 'medium', 'low'] });
    expect(score).toMatchObject({ levels: ['low', 'medium', 'high'] }); // reversing copied, not mutated
  });

  it('presents Yes before No, or No before Yes', () => {
    const { criteria } = mainQuestion(noul) as { criteria: object };
    expect(Object.entries(criteria)).toEqual([
      ['true', 'Yes'],
      ['false', 'No'],
    ]);
    const reversed = (mainQuestion(noul, reversedOrder(2)) as { criteria: object }).criteria;
    expect(Object.entries(reversed)).toEqual([
      ['false', 'No'],
      ['true', 'Yes'],
    ]);
  });

  it('gives the question verbatim and the same instructions either way round', () => {
    for (const request of [choice, score, noul]) {
      const main = mainQuestion(request);
      expect(main.instructions).toContain(`this question${request.mode === 'noul' ? ' is yes or no' : ''}: ${request.question}\n`);
      // Engines add their own "Question:" header; the instructions never carry a second one.
      expect(main.instructions).not.toContain('Question:');
      expect(mainQuestion(request, reversedOrder(request.mode === 'noul' ? 2 : 3)).instructions).toBe(main.instructions);
    }
    expect(mainQuestion(choice).instructions).not.toContain('Rust');
  });

  it('probes sufficiency as a yes/no question about this question and its answers', () => {
    const probe = sufficiencyQuestion(choice);
    expect(probe.type).toBe('noul');
    expect(probe.instructions).toMatch(/^Does the text contain enough facts to answer this question with confidence: /);
    expect(probe.instructions).toContain('with confidence: Which language should the new service use?\n');
    // The options as the main question shows them, sorted: the request's order says nothing.
    expect(probe.instructions).toContain('"Go", "Rust", "TypeScript"');
    const listedOtherwise = DecisionRequest.parse({ ...choice, options: ['TypeScript', 'Rust', 'Go'] });
    expect(sufficiencyQuestion(listedOtherwise).instructions).toBe(probe.instructions);
    expect(sufficiencyQuestion(score).instructions).toContain('from low to high: "low", "medium", "high"');
  });
});

describe('reading answers', () => {
  it('maps a reversed score answer back to the original level order', () => {
    // Asked high, medium, low: the engine's index 0 is "high".
    const reading = readMain(score, 'reversed', { type: 'score', probabilities: [0.7, 0.2, 0.1] }, reversedOrder(3));
    expect(reading).toEqual({ mode: 'score', labels: ['low', 'medium', 'high'], p: [0.1, 0.2, 0.7] });
    expect(weigh(reading).result).toMatchObject({ score: 1.6, probabilities: { low: 0.1, medium: 0.2, high: 0.7 } });
  });

  it('reads a choice answer by label, whatever order it was presented in', () => {
    const answer = { type: 'choice' as const, probabilities: { TypeScript: 0.5, Go: 0.3, Rust: 0.2 } };
    const reading = readMain(choice, 'reversed', answer, reversedOrder(3));
    expect(reading).toEqual({ mode: 'choice', labels: ['Rust', 'Go', 'TypeScript'], p: [0.2, 0.3, 0.5] });
    expect(Object.keys((weigh(reading).result as { probabilities: object }).probabilities)).toEqual(['Rust', 'Go', 'TypeScript']);
    expect(readMain(choice, 'main', answer)).toEqual(reading);
  });

  it('renormalises drift and reads a yes probability', () => {
    const reading = readMain(score, 'main', { type: 'score', probabilities: [0.2, 0.2, 0.6000001] });
    expect(reading.mode === 'score' && reading.p.reduce((a, b) => a + b)).toBeCloseTo(1, 12);
    expect(readYes('sufficiency', { type: 'noul', yes: 0.8 })).toBeCloseTo(0.8, 12);
    expect(readMain(noul, 'main', { type: 'noul', yes: 0.3 })).toEqual({ mode: 'noul', yes: 0.3 });
  });

  it('rejects an unusable answer as bad_response', () => {
    const bad = [
      () => readMain(choice, 'main', undefined),
      () => readMain(choice, 'main', { type: 'noul', yes: 0.5 }),
      () => readMain(choice, 'main', { type: 'choice', probabilities: { Rust: 0.5, Go: 0.5 } }),
      () => readMain(choice, 'main', { type: 'choice', probabilities: { Rust: 0, Go: 0, TypeScript: 0 } }),
      () => readMain(score, 'main', { type: 'score', probabilities: [0.5, 0.5] }),
      () => readMain(score, 'main', { type: 'score', probabilities: [0.5, Number.NaN, 0.5] }),
      () => readMain(score, 'main', { type: 'score', probabilities: [1.5, -0.5, 0] }),
      () => readYes('sufficiency', { type: 'noul', yes: 1.2 }),
    ];
    for (const read of bad) {
      expect(read).toThrow(EngineError);
      try {
        read();
      } catch (error) {
        expect((error as EngineError).kind).toBe('bad_response');
      }
    }
  });
});
