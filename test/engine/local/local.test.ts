import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DecisionRequest } from '../../../src/contract/decision.js';
import { runDecision } from '../../../src/decision/run.js';
import { type Engine, EngineError } from '../../../src/engine/engine.js';
import { createLocalEngine } from '../../../src/engine/local/local.js';
import { LocalEngineError, loadRuntime, MISSING_RUNTIME } from '../../../src/engine/local/runtime.js';
import { ROOT } from '../../support/cli.js';
import { LOCAL_RUNTIME, NEEDS_LOCAL_RUNTIME } from '../../support/local-runtime.js';
import { CHOICE, NOUL, SCORE } from '../../support/requests.js';
import { startWithLocal, TINY_MODEL, TINY_MODEL_NAME } from '../../support/service.js';

/**
 * The local engine on the tiny random-weights model: the answers are random, so
 * these tests check the plumbing (shapes, sums, accounting, batching), never quality.
 */
describe.skipIf(!LOCAL_RUNTIME)(`local engine through the service ${NEEDS_LOCAL_RUNTIME}`, () => {
  let svc: Awaited<ReturnType<typeof startWithLocal>>;
  beforeAll(async () => {
    svc = await startWithLocal();
  });
  afterAll(() => svc.close());

  const sum = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);

  it.each([
    ['choice', CHOICE],
    ['score', SCORE],
  ] as const)('answers a %s decision with a full distribution and reports the local model', async (_mode, request) => {
    const { key } = await svc.newKey();
    const res = await svc.call('POST', '/v1/decisions', { key, json: request });
    expect(res.status).toBe(200);
    const labels = 'options' in request ? request.options : request.levels;
    expect(Object.keys(res.body.result.probabilities)).toEqual(labels);
    expect(sum(res.body.result.probabilities)).toBeCloseTo(1, 6);
    expect(res.body.model).toBe(TINY_MODEL_NAME);
    expect(res.body.inputTokens).toBeGreaterThan(0);
    expect(res.body.contextSufficiency).toBeGreaterThanOrEqual(0);
    expect(res.body.access).toEqual({ type: 'free', freeRemaining: 19 });
  });

  it('answers a noul decision with a probability of yes', async () => {
    const { key } = await svc.newKey();
    const res = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(res.status).toBe(200);
    expect(res.body.result.yesProbability).toBeGreaterThanOrEqual(0);
    expect(res.body.result.yesProbability).toBeLessThanOrEqual(1);
    expect(['yes', 'no', 'unclear', 'needs-context']).toContain(res.body.signal);
  });

  it('asks a noul stress decision No-first for the reversed check', async () => {
    const { key } = await svc.newKey(5);
    const res = await svc.call('POST', '/v1/decisions', { key, json: { ...NOUL, depth: 'stress' } });
    expect(res.status).toBe(200);
    const [reversed] = res.body.stress.checks;
    expect(reversed.kind).toBe('reversed');
    expect(reversed.result.yesProbability).toBeGreaterThanOrEqual(0);
    expect(reversed.result.yesProbability).toBeLessThanOrEqual(1);
  });

  it('answers a 4-fact stress decision: reversed check, one check per fact, a pivot, 5 credits', async () => {
    const { key } = await svc.newKey(5);
    const res = await svc.call('POST', '/v1/decisions', { key, json: { ...CHOICE, depth: 'stress' } });
    expect(res.status).toBe(200);
    const { checks, pivot } = res.body.stress;
    expect(checks.map((c: { kind: string }) => c.kind)).toEqual(['reversed', ...Array(4).fill('without-fact')]);
    expect(checks.slice(1).map((c: { factIndex: number }) => c.factIndex)).toEqual([0, 1, 2, 3]);
    for (const check of checks) expect(sum(check.result.probabilities)).toBeCloseTo(1, 6);
    expect(pivot === null || [0, 1, 2, 3].includes(pivot.factIndex)).toBe(true);
    expect(res.body.access).toEqual({ type: 'pass', passCredits: 0 });
  });

  it("answers the System One format's largest questions, 255 options and 10 levels, each charged as one standard decision", async () => {
    const { key } = await svc.newKey();
    const criteria = Object.fromEntries(Array.from({ length: 255 }, (_, i) => [`Queue ${i + 1}`, i % 3 ? null : `team ${i}`]));
    const levels = Array.from({ length: 10 }, (_, i) => `urgency ${i}`);
    const questions = { queue: { type: 'choice', criteria }, urgency: { type: 'score', criteria: levels } };
    const res = await svc.call('POST', '/v1/systemone', { key, json: { state: 'The invoice was paid twice.', questions } });
    expect(res.status).toBe(200);
    const { queue, urgency } = res.body.answers;
    expect(Object.keys(queue.probabilities)).toEqual(Object.keys(criteria));
    expect(sum(queue.probabilities)).toBeCloseTo(1, 6);
    expect(Object.keys(criteria)).toContain(queue.choice);
    expect(Object.keys(urgency.probabilities)).toHaveLength(10);
    expect(sum(urgency.probabilities)).toBeCloseTo(1, 6);
    expect(res.body.model).toBe(TINY_MODEL_NAME);
    expect((await svc.call('GET', '/v1/usage', { key })).body.freeUsed).toBe(2);
  });

  it('serves concurrent decisions from one model, each charged once', async () => {
    const { key } = await svc.newKey();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => svc.call('POST', '/v1/decisions', { key, json: i % 2 ? NOUL : SCORE })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
    const usage = await svc.call('GET', '/v1/usage', { key });
    expect(usage.body.freeUsed).toBe(12);
  });
});

describe('local engine start-up errors', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-local-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names a model file that does not exist', async () => {
    const missing = path.join(dir, 'nope.gguf');
    const error = await createLocalEngine({ modelPath: missing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalEngineError);
    expect(error).toMatchObject({ reason: 'model', message: `the model file ${missing} does not exist or cannot be read` });
  });

  // A missing file is named before the runtime is loaded: this one runs without it too.
  it.skipIf(!LOCAL_RUNTIME)(`says a corrupt file is not a loadable GGUF model ${NEEDS_LOCAL_RUNTIME}`, async () => {
    const corrupt = path.join(dir, 'corrupt.gguf');
    fs.writeFileSync(corrupt, Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(4096, 7)]));
    const error = await createLocalEngine({ modelPath: corrupt }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalEngineError);
    expect((error as Error).message).toMatch(new RegExp(`^cannot load the model ${corrupt}: .*is it a GGUF model file\\?`));
  });

  it('says how to install node-llama-cpp, in the major version package.json accepts, when it is missing', async () => {
    const error = await loadRuntime('node-llama-cpp-not-installed').catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'runtime', message: MISSING_RUNTIME });
    const range = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).peerDependencies['node-llama-cpp'];
    expect(MISSING_RUNTIME).toContain(`npm install node-llama-cpp@${/^\^(\d+)\./.exec(range)![1]}`);
  });
});

describe.skipIf(!LOCAL_RUNTIME)(`local engine: deadlines ${NEEDS_LOCAL_RUNTIME}`, () => {
  it('turns an aborted decision into a timeout', async () => {
    const engine = await createLocalEngine({ modelPath: TINY_MODEL });
    try {
      const question = { main: { type: 'noul' as const, instructions: 'Is it raining?' } };
      const done = new AbortController();
      done.abort();
      await expect(engine.ask('It rains.', question, done.signal)).rejects.toMatchObject({ kind: 'timeout' });
      const soon = new AbortController();
      const pending = engine.ask('It rains. '.repeat(200), question, soon.signal);
      soon.abort();
      const error = await pending.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EngineError);
      expect(error).toMatchObject({ kind: 'timeout' });
    } finally {
      await engine.close?.();
    }
  });
});

describe.skipIf(!LOCAL_RUNTIME)(`local engine: a decision's shared prefixes evaluated once ${NEEDS_LOCAL_RUNTIME}`, () => {
  let engine: Awaited<ReturnType<typeof createLocalEngine>>;
  beforeAll(async () => {
    engine = await createLocalEngine({ modelPath: TINY_MODEL, threads: 1 });
  });
  afterAll(() => engine.close!());

  const stress = DecisionRequest.parse({ ...CHOICE, depth: 'stress' });
  const decide = (on: Engine) => runDecision(stress, on, { signal: new AbortController().signal, debias: 'reverse' });
  it('answers the calls of a stress decision asked as one tree exactly as each asked alone', async () => {
    const facts = ['The team knows SQL well.', 'Billing needs transactions.', 'Traffic is modest.', 'Nobody has run MongoDB.'];
    const states = [facts.join(' '), ...facts.map((_, i) => facts.filter((__, j) => j !== i).join(' '))];
    const options = ['PostgreSQL', 'MongoDB', 'DynamoDB'].map((label) => ({ label, description: null }));
    const questions = {
      main: { type: 'choice' as const, instructions: 'Which database?', criteria: options },
      reversed: { type: 'choice' as const, instructions: 'Which database?', criteria: [...options].reverse() },
      sufficiency: { type: 'noul' as const, instructions: 'Are the facts enough?' },
    };
    const calls = states.map((state) => ({ state, questions }));
    const together = await engine.askAll(calls, new AbortController().signal);
    const apart = [];
    for (const call of [...calls].reverse()) apart.unshift(await engine.ask(call.state, call.questions, new AbortController().signal));
    const numbers = (replies: typeof together) =>
      replies.flatMap((reply) => Object.values(reply.answers).flatMap((a) => ('yes' in a ? [a.yes] : Object.values(a.probabilities))));
    const [a, b] = [numbers(together), numbers(apart)];
    expect(a).toHaveLength(5 * 7);
    a.forEach((p, i) => expect(p).toBeCloseTo(b[i], 6));
    // The states do answer differently, so answers mixed up between them would show.
    const mainOf = (k: number) => Object.values((together[k].answers.main as { probabilities: Record<string, number> }).probabilities);
    expect(Math.max(...states.slice(1).map((_, k) => Math.abs(mainOf(k + 1)[0] - mainOf(0)[0])))).toBeGreaterThan(1e-6);
    expect(together.map((r) => r.inputTokens)).toEqual(apart.map((r) => r.inputTokens));
  });

  it('answers alike whether its branches get sequences of their own or take turns on one', async () => {
    const alone = await decide(engine);
    // Eight at once hold every sequence: each decision's branches are taken one after another on its own.
    const together = await Promise.all(Array.from({ length: 8 }, () => decide(engine)));
    // Every number of the outcome (its result, checks, sufficiency, tokens), in order.
    const numbers = (outcome: typeof alone) =>
      JSON.stringify(outcome)
        .match(/-?\d+(\.\d+)?(e-?\d+)?/g)!
        .map(Number);
    // Alike to three places, not to the last bit: llama.cpp's sums round differently
    // in a batch of another size (a few 1e-5 here), while answers read off another
    // reading's state would be off by the gap between the readings' answers, which
    // is more than that (checked just below).
    const places = 3;
    const probabilities = (alone.stress!.checks.map((c) => c.result) as { probabilities: Record<string, number> }[]).map(
      (r) => r.probabilities.PostgreSQL,
    );
    const gaps = probabilities.flatMap((p, i) => probabilities.slice(i + 1).map((q) => Math.abs(p - q)));
    expect(Math.min(...gaps)).toBeGreaterThan(10 ** -places / 2);
    for (const outcome of together) {
      expect(outcome.stress!.checks.map((c) => c.kind)).toEqual(alone.stress!.checks.map((c) => c.kind));
      const [a, b] = [numbers(outcome), numbers(alone)];
      expect(a).toHaveLength(b.length);
      a.forEach((n, i) => expect(n).toBeCloseTo(b[i], places));
    }
  });

  it('evaluates fewer tokens than its prompts hold, and inputTokens counts every prompt token, reused or not', async () => {
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = engine.stats();
      const outcome = await decide(engine);
      const after = engine.stats();
      expect(outcome.inputTokens).toBe(after.promptTokens - before.promptTokens);
      expect(after.evaluatedTokens - before.evaluatedTokens).toBeLessThan(outcome.inputTokens! / 2);
      counts.push(outcome.inputTokens!);
    }
    // The same decision, whatever the sequences held before it: the same count.
    expect(new Set(counts).size).toBe(1);
    const standard = await runDecision(DecisionRequest.parse(CHOICE), engine, { signal: new AbortController().signal, debias: 'reverse' });
    expect(standard.inputTokens).toBeLessThan(counts[0]);
  });
});
