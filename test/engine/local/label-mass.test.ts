import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChoiceQuestion } from '../../../src/engine/engine.js';
import { createLocalEngine, type LocalEngine } from '../../../src/engine/local/local.js';
import { PromptLayout, spellingsOf } from '../../../src/engine/local/prompt.js';
import { lettered } from '../../../src/engine/local/questions.js';
import { type LlamaModel, loadRuntime, type NodeLlamaCpp } from '../../../src/engine/local/runtime.js';
import { LOCAL_RUNTIME, NEEDS_LOCAL_RUNTIME } from '../../support/local-runtime.js';
import { TINY_MODEL } from '../../support/service.js';

const STATE = 'The team knows SQL well. The service needs transactions across several tables.';
const QUESTION: ChoiceQuestion = {
  type: 'choice',
  instructions: 'Which database should the team adopt?',
  criteria: ['MongoDB', 'PostgreSQL', 'SQLite'].map((label) => ({ label, description: null })),
};

/**
 * An answer's labelMass on the local engine is the share of the model's whole
 * next-token distribution that its offered letters hold, every spelling counted:
 * checked against node-llama-cpp's own full distribution of the same prompt.
 */
describe.skipIf(!LOCAL_RUNTIME)(`the local engine's labelMass ${NEEDS_LOCAL_RUNTIME}`, () => {
  let engine: LocalEngine;
  let runtime: NodeLlamaCpp;
  let llama: Awaited<ReturnType<NodeLlamaCpp['getLlama']>>;
  let model: LlamaModel;
  beforeAll(async () => {
    engine = await createLocalEngine({ modelPath: TINY_MODEL, threads: 1 });
    runtime = await loadRuntime();
    llama = await runtime.getLlama({ build: 'never', maxThreads: 1, logLevel: 'error', logger: () => {} });
    model = await llama.loadModel({ modelPath: TINY_MODEL });
  });
  afterAll(async () => {
    await engine?.close?.();
    await llama?.dispose();
  });

  it('counts each letter alone and after a space, as the vocabulary spells it', () => {
    const spellings = spellingsOf(model, 'A');
    expect(spellings.length).toBe(2);
    expect(spellings.map((token) => model.detokenize([token]).trim())).toEqual(['A', 'A']);
  });

  it("is the offered letters' share of the whole next-token distribution", async () => {
    const reply = await engine.ask(STATE, { main: QUESTION }, AbortSignal.timeout(60_000));
    const { labelMass } = reply.answers.main;

    const reading = PromptLayout.create(runtime, model).reading(STATE, lettered(QUESTION));
    const context = await model.createContext({ threads: 1, sequences: 1, contextSize: { max: 2048 } });
    const sequence = context.getSequence() as unknown as {
      controlledEvaluate(input: unknown[]): Promise<Array<{ next?: { probabilities?: Map<number, number> } } | undefined>>;
    };
    const tokens = reading.tokens;
    const results = await sequence.controlledEvaluate([...tokens.slice(0, -1), [tokens.at(-1), { generateNext: { probabilities: true } }]]);
    const probabilities = results.at(-1)!.next!.probabilities!;
    const offered = reading.letters.flat().reduce((sum, token) => sum + (probabilities.get(token) ?? 0), 0);
    await context.dispose();

    expect(labelMass).toBeGreaterThan(0);
    expect(labelMass).toBeCloseTo(offered, 5);
    // The three letters, not the whole alphabet: the tiny model leans on A to Z alike.
    expect(offered).toBeLessThan(1);
  });
});
