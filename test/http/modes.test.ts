import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { promptText } from '../fakes/openai-fake.js';
import { choiceAnswer, noulAnswer, scoreAnswer } from '../fakes/systemone-fake.js';
import { CHOICE, NOUL, SCORE } from '../support/requests.js';
import { scripted } from '../support/scripts.js';
import { startWithOpenAI, startWithSystemOne, type Running } from '../support/service.js';
import { systemOnePromptTokens } from '../support/tokens.js';

describe('each mode end to end through the OpenAI-compatible engine', () => {
  let svc: Running;
  let key: string;
  beforeAll(async () => {
    svc = await startWithOpenAI();
    key = (await svc.newKey()).key;
  });
  afterAll(() => svc.close());
  beforeEach(() => {
    svc.fake.respond();
    svc.fake.requests.length = 0;
  });

  it('choice: probabilities from the answer token, folded, renormalised, in request order', async () => {
    // 0.2 of the mass is on a token that is no label; " yes"/"Yes" are one label.
    svc.fake.respond(scripted({ PostgreSQL: 0.6, MongoDB: 0.2, The: 0.2 }, { Yes: 0.5, ' yes': 0.2, No: 0.1, Maybe: 0.2 }));
    const res = await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
    expect(res.status).toBe(200);
    const body = res.body;
    expect(Object.keys(body.result.probabilities)).toEqual(['PostgreSQL', 'MongoDB']);
    expect(body.result).toEqual({ selected: 'PostgreSQL', confidence: 0.5, probabilities: { PostgreSQL: 0.75, MongoDB: 0.25 } });
    expect(body.contextSufficiency).toBe(0.875);
    expect(body.signal).toBe('directional');
    expect(body.mode).toBe('choice');
    expect(body.question).toBe(CHOICE.question);
    expect(body.model).toBe('fake-logprobs-1');
    expect(body.stress).toBeNull();
    expect(body.access).toEqual({ type: 'free', freeRemaining: 19 });
    // The fake reports ceil(prompt characters / 4) per call; the decision sums both calls.
    const expected = svc.fake.requests.reduce((sum, r) => sum + Math.ceil(promptText(r.body).length / 4), 0);
    expect(svc.fake.requests).toHaveLength(2);
    expect(body.inputTokens).toBe(expected);
    expect(Date.parse(body.evaluatedAt)).not.toBeNaN();
    expect(body.evaluatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(body.timing.processingMs).toBeGreaterThanOrEqual(0);
    expect(body.timing.samplesToday).toBeGreaterThanOrEqual(1);
    expect(res.headers['ratelimit-policy']).toBe('"free";q=20;w=86400');
    expect(res.headers.ratelimit).toMatch(/^"free";r=19;t=\d+$/);
  });

  it('noul: yes probability, and the signal follows its thresholds', async () => {
    svc.fake.respond(scripted({ Yes: 0.55, No: 0.45 }, { Yes: 0.9, No: 0.1 }));
    const unclear = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(unclear.body.result).toEqual({ yesProbability: 0.55 });
    expect(unclear.body.signal).toBe('unclear');

    svc.fake.respond(scripted({ Yes: 0.6, No: 0.4 }, { Yes: 0.9, No: 0.1 }));
    const yes = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(yes.body.result).toEqual({ yesProbability: 0.6 });
    expect(yes.body.signal).toBe('yes');

    svc.fake.respond(scripted({ Yes: 0.1, No: 0.9 }, { Yes: 0.9, No: 0.1 }));
    const no = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(no.body.signal).toBe('no');
  });

  it('score: expected level index and normalised peak', async () => {
    svc.fake.respond(scripted({ low: 0.2, medium: 0.5, high: 0.3 }, { Yes: 0.7, No: 0.3 }));
    const res = await svc.call('POST', '/v1/decisions', { key, json: SCORE });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      score: 1.1,
      likeliest: 'medium',
      confidence: 0.25,
      probabilities: { low: 0.2, medium: 0.5, high: 0.3 },
    });
    expect(res.body.signal).toBe('directional');
    expect(res.body.contextSufficiency).toBe(0.7);
  });

  it('says needs-context when the probe finds the context insufficient, whatever the answer', async () => {
    svc.fake.respond(scripted({ PostgreSQL: 0.95, MongoDB: 0.05 }, { Yes: 0.3, No: 0.7 }));
    const res = await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
    expect(res.body.contextSufficiency).toBe(0.3);
    expect(res.body.signal).toBe('needs-context');
    expect(res.body.result.selected).toBe('PostgreSQL');
  });

  it('gives the same probabilities for the same request (deterministic engine answers)', async () => {
    const first = await svc.call('POST', '/v1/decisions', { key, json: SCORE });
    const second = await svc.call('POST', '/v1/decisions', { key, json: SCORE });
    expect(second.body.result).toEqual(first.body.result);
    expect(second.body.contextSufficiency).toBe(first.body.contextSufficiency);
    const sum = Object.values<number>(first.body.result.probabilities).reduce((a, b) => a + b, 0);
    expect(Math.abs(sum - 1)).toBeLessThanOrEqual(0.001);
  });

  it('trims fields and keeps option spelling; 2000 emoji is a valid context', async () => {
    const res = await svc.call('POST', '/v1/decisions', {
      key,
      json: { ...CHOICE, question: `   ${CHOICE.question}  `, options: [' Option Ä ', 'option b'], context: '😀'.repeat(2000) },
    });
    expect(res.status).toBe(200);
    expect(res.body.question).toBe(CHOICE.question);
    expect(Object.keys(res.body.result.probabilities)).toEqual(['Option Ä', 'option b']);
  });
});

describe('each mode end to end through a System One engine', () => {
  let svc: Awaited<ReturnType<typeof startWithSystemOne>>;
  let key: string;
  beforeAll(async () => {
    svc = await startWithSystemOne();
    key = (await svc.newKey()).key;
  });
  afterAll(() => svc.close());

  it('sends one call with the main question and the probe, and reads the answers', async () => {
    svc.fake.requests.length = 0;
    svc.fake.respond(() => ({
      answers: {
        main: choiceAnswer({ PostgreSQL: 0.3, MongoDB: 0.7 }),
        sufficiency: noulAnswer(0.64),
      },
      usage: 321,
    }));
    const res = await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
    expect(res.status).toBe(200);
    expect(svc.fake.requests).toHaveLength(1);
    const sent = svc.fake.requests[0].body;
    expect(sent.model).toBe('fake-systemone-1');
    expect(sent.state).toBe(CHOICE.context);
    expect(Object.keys(sent.questions)).toEqual(['main', 'sufficiency']);
    expect(sent.questions.main.type).toBe('choice');
    // Shown sorted, whatever order the request lists them in; answered in the request's.
    expect(Object.keys(sent.questions.main.criteria)).toEqual(['MongoDB', 'PostgreSQL']);
    expect(res.body.result).toEqual({ selected: 'MongoDB', confidence: 0.4, probabilities: { PostgreSQL: 0.3, MongoDB: 0.7 } });
    expect(res.body.contextSufficiency).toBe(0.64);
    expect(res.body.inputTokens).toBe(321);
    expect(res.body.model).toBe('fake-systemone-1');
  });

  it('score and noul answers', async () => {
    svc.fake.respond(() => ({ answers: { main: scoreAnswer([0.1, 0.1, 0.8]), sufficiency: noulAnswer(0.9) } }));
    const score = await svc.call('POST', '/v1/decisions', { key, json: SCORE });
    expect(score.body.result).toEqual({
      score: 1.7,
      likeliest: 'high',
      confidence: 0.7,
      probabilities: { low: 0.1, medium: 0.1, high: 0.8 },
    });

    svc.fake.requests.length = 0;
    svc.fake.respond(() => ({ answers: { main: noulAnswer(0.35), sufficiency: noulAnswer(0.9) }, usage: null }));
    const noul = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(noul.body.result).toEqual({ yesProbability: 0.35 });
    expect(noul.body.signal).toBe('no');
    // A server that reports no usage: decide counts the texts it sent.
    expect(noul.body.inputTokens).toBe(systemOnePromptTokens(svc.fake.requests[0].body));
  });
});
