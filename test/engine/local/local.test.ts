import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DecisionRequest } from '../../../src/contract/decision.js';
import { runDecision } from '../../../src/decision/run.js';
import { type Engine, EngineError, type EngineReply } from '../../../src/engine/engine.js';
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
  const facts = ['The team knows SQL well.', 'Billing needs transactions.', 'Traffic is modest.', 'Nobody has run MongoDB.'];
  const states = [facts.join(' '), ...facts.map((_, i) => facts.filter((__, j) => j !== i).join(' '))];
  const options = ['PostgreSQL', 'MongoDB', 'DynamoDB'].map((label) => ({ label, description: null }));
  const questions = {
    main: { type: 'choice' as const, instructions: 'Which database?', criteria: options },
    reversed: { type: 'choice' as const, instructions: 'Which database?', criteria: [...options].reverse() },
    sufficiency: { type: 'noul' as const, instructions: 'Are the facts enough?' },
  };
  const calls = states.map((state) => ({ state, questions }));
  /** Every probability of the replies, unrounded, in order. */
  const numbers = (replies: Awaited<ReturnType<typeof engine.askAll>>) =>
    replies.flatMap((reply) => Object.values(reply.answers).flatMap((a) => ('yes' in a ? [a.yes] : Object.values(a.probabilities))));

  it('answers the calls of a stress decision asked as one tree exactly as each asked alone', async () => {
    const together = await engine.askAll(calls, new AbortController().signal);
    const apart = [];
    for (const call of [...calls].reverse()) apart.unshift(await engine.ask(call.state, call.questions, new AbortController().signal));
    const [a, b] = [numbers(together), numbers(apart)];
    expect(a).toHaveLength(5 * 7);
    // Alike to two places, not to the last bit: asked alone, each call is evaluated
    // whole from an empty sequence; in the tree, a branch after the prefix it shares,
    // in a batch of another size (up to a few 1e-4 apart here). Each way reads the
    // same every time (below); answers mixed up between states would be further apart.
    a.forEach((p, i) => expect(p).toBeCloseTo(b[i], 2));
    // The states do answer differently, so answers mixed up between them would show.
    const mainOf = (k: number) => Object.values((together[k].answers.main as { probabilities: Record<string, number> }).probabilities);
    expect(Math.max(...states.slice(1).map((_, k) => Math.abs(mainOf(k + 1)[0] - mainOf(0)[0])))).toBeGreaterThan(1e-2);
    expect(together.map((r) => r.inputTokens)).toEqual(apart.map((r) => r.inputTokens));
  });

  it('reads the same request identically to the last bit, whatever ran before, beside it or since a restart', async () => {
    const ask = (on: typeof engine) => on.askAll(calls, new AbortController().signal);
    const first = numbers(await ask(engine));
    // Other work first: other decisions, whose prompts share the chat template and
    // part of this one's question and facts, left in the engine's state.
    const others = [NOUL, SCORE, { ...CHOICE, context: 'Billing needs transactions. The team knows SQL well.' }].map((r) =>
      DecisionRequest.parse({ ...r, depth: 'stress' }),
    );
    const other = (i: number) => runDecision(others[i % 3], engine, { signal: new AbortController().signal, debias: 'reverse' });
    for (let i = 0; i < others.length; i++) await other(i);
    const after = numbers(await ask(engine));
    // Beside other work: eight at once, this request and the others interleaved.
    const beside = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? other(i) : ask(engine))));
    // And on a new engine, as after a restart.
    const restarted = await createLocalEngine({ modelPath: TINY_MODEL, threads: 1 });
    let again: number[];
    try {
      again = numbers(await ask(restarted));
    } finally {
      await restarted.close!();
    }
    const repeats = [after, ...beside.flatMap((reply, i) => (i % 2 ? [] : [numbers(reply as EngineReply[])])), again];
    expect(repeats).toHaveLength(6);
    for (const repeat of repeats) {
      expect(repeat).toHaveLength(first.length);
      repeat.forEach((p, i) => expect(Math.abs(p - first[i])).toBeLessThanOrEqual(1e-9));
    }
    // And a whole decision, as a caller reads it, the same too.
    const answer = (outcome: Awaited<ReturnType<typeof decide>>) => JSON.stringify({ ...outcome, timing: undefined });
    const [one, two] = [await decide(engine), (await Promise.all([other(0), decide(engine), other(1)]))[1]];
    expect(answer(two as Awaited<ReturnType<typeof decide>>)).toBe(answer(one));
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
