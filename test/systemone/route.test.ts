import { afterEach, describe, expect, it } from 'vitest';
import { factsText, offeredOptions, questionText } from '../fakes/openai-fake.js';
import { tokens } from '../support/scripts.js';
import { startWithOpenAI, type Running, type StartOptions } from '../support/service.js';

const STATE = 'The invoice was paid twice. The customer wrote three times this week.';

describe('POST /v1/systemone and GET /v1/models on the HTTP API', () => {
  let svc: Running;
  afterEach(() => svc?.close());
  async function start(options: StartOptions = {}) {
    svc = await startWithOpenAI(options);
    return (await svc.newKey()).key;
  }
  const ask = (key: string, json: unknown, headers: Record<string, string> = {}) => svc.call('POST', '/v1/systemone', { key, json, headers });
  const usage = async (key: string) => (await svc.call('GET', '/v1/usage', { key })).body;

  it('refuses a bad request with a 400 naming the question and the field, before anything is charged or asked', async () => {
    const key = await start();
    const cases: [unknown, string][] = [
      [{ state: STATE, questions: { topic: { type: 'choice', criteria: { only: null } } } }, 'questions.topic.criteria: must hold 2 to 20 labels (got 1)'],
      [{ state: STATE, questions: { topic: { type: 'choice', criteria: { Billing: null, 'BILLING\u200b': null } } } }, 'questions.topic.criteria.BILLING\u200b: must be distinct'],
      [{ state: STATE, questions: { level: { type: 'score', criteria: Array(10).fill('x') } } }, 'questions.level.criteria: must hold 2 to 9 levels'],
      [{ state: STATE, questions: { q: { type: 'yesno' } } }, 'questions.q.type: must be one of noul, choice, score'],
      [{ state: STATE, questions: { q: { type: 'noul', critera: {} } } }, 'questions.q.critera: not allowed here'],
      [{ state: STATE, questions: {} }, 'questions: must hold 1 to 32 questions (got 0)'],
      [{ state: STATE, questions: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`q${i}`, { type: 'noul' }])) }, 'questions: must hold 1 to 32 questions (got 33)'],
      [{ state: 'x'.repeat(16_001), questions: { q: { type: 'noul' } } }, 'state: must be at most 16000 characters as text (got 16001)'],
      [{ questions: { q: { type: 'noul' } } }, 'state: '],
      [{ state: STATE, questions: { q: { type: 'noul', instructions: { long: 'y'.repeat(2_000) } } } }, 'questions.q.instructions: must be at most 2000 characters as text'],
    ];
    for (const [body, field] of cases) {
      const res = await ask(key, body);
      expect(res.status, field).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      expect(res.body.error).toContain(field);
    }
    expect(svc.fake.requests).toHaveLength(0);
    expect((await usage(key)).freeUsed).toBe(0);
  });

  it('reads a JSON state compactly, the caller’s own wording and labels, and echoes the labels as sent', async () => {
    const key = await start();
    const state = { ticket: { text: 'Charged twice', customer: 'ACME' }, replies: 3 };
    svc.fake.respond((body) => ({ labels: tokens(body, { 'Billing — payments': 0.8, Technical: 0.2 }) }));
    const res = await ask(key, {
      model: 'jev-latest',
      state,
      questions: { team: { type: 'choice', instructions: 'Which team handles it?', criteria: { 'Billing\u200b': 'payments', Technical: null } } },
      metadata: { forwarded: 'by a client' },
    });
    expect(res.status).toBe(200);
    const [request] = svc.fake.requests;
    expect(factsText(request.body)).toBe(JSON.stringify(state));
    expect(questionText(request.body)).toBe('Which team handles it?');
    // The engine reads the label without its invisible character; the answer keeps it as sent.
    expect(offeredOptions(request.body).map((o) => o.text)).toEqual(['Billing — payments', 'Technical']);
    expect(res.body).toEqual({
      model: 'fake-logprobs-1',
      answers: { team: { type: 'choice', choice: 'Billing\u200b', confidence: 0.6, probabilities: { 'Billing\u200b': 0.8, Technical: 0.2 } } },
      usage: { input_tokens: expect.any(Number), output_tokens: 0 },
    });
    expect(res.body.answers.team.probabilities['Billing\u200b']).toBeCloseTo(0.8, 12);
  });

  it('debiases and calibrates each question as configured: one reading per question, in both orders', async () => {
    const key = await start({ debias: 'reverse', temperatures: { noul: 2 } });
    // A model that favours whatever it is shown first: 0.7 on the first answer, either way round.
    svc.fake.respond((body) => {
      const [first, second] = offeredOptions(body).map((o) => o.label);
      return { labels: { [first]: 0.7, [second]: 0.3 } };
    });
    const res = await ask(key, {
      state: STATE,
      questions: { paid: { type: 'noul', instructions: 'Was it paid twice?' }, level: { type: 'score', criteria: ['low', 'high'] } },
    });
    expect(res.status).toBe(200);
    expect(svc.fake.requests).toHaveLength(4);
    // The place bias cancels out; the temperature leaves an even reading even.
    expect(res.body.answers.paid.noul).toBeCloseTo(0.5, 12);
    expect(res.body.answers.level).toEqual({
      type: 'score',
      score: 0.5,
      confidence: 0,
      legend: { 0: 'low', 1: 'high' },
      probabilities: { 0: expect.closeTo(0.5, 12), 1: expect.closeTo(0.5, 12) },
    });

    // Calibration applies to the mode it was fitted for: p ∝ p^(1/2).
    svc.fake.respond((body) => ({ labels: tokens(body, { Yes: 0.8, No: 0.2 }) }));
    const calibrated = await ask(key, { state: STATE, questions: { paid: { type: 'noul', instructions: 'Was it paid twice?' } } });
    expect(calibrated.body.answers.paid.noul).toBeCloseTo(Math.sqrt(0.8) / (Math.sqrt(0.8) + Math.sqrt(0.2)), 12);
  });

  it('replays an Idempotency-Key without asking or charging again; another body under it is 422', async () => {
    const key = await start();
    const body = { state: STATE, questions: { a: { type: 'noul' }, b: { type: 'noul', instructions: 'Is it urgent?' } } };
    const first = await ask(key, body, { 'idempotency-key': 'retry-7' });
    expect(first.status).toBe(200);
    expect(first.headers.ratelimit).toMatch(/^"free";r=18;t=\d+$/);
    const again = await ask(key, body, { 'idempotency-key': 'retry-7' });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(svc.fake.requests).toHaveLength(2);
    expect((await usage(key)).freeUsed).toBe(2);

    const other = await ask(key, { ...body, questions: { a: { type: 'noul' } } }, { 'idempotency-key': 'retry-7' });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    const malformed = await ask(key, body, { 'idempotency-key': 'é' });
    expect(malformed.body.error).toBe('Idempotency-Key header: must be 1 to 255 printable ASCII characters');
  });

  it('counts a request as one api sample, logs it as /v1/decisions are, and fails whole and free when the engine is down', async () => {
    const key = await start();
    await ask(key, { state: STATE, questions: { a: { type: 'noul' }, b: { type: 'noul', instructions: 'Is it urgent?' } } });
    const metrics = (await svc.call('GET', '/v1/metrics')).body;
    expect(metrics.api.samples).toBe(1);
    expect(metrics.web.samples).toBe(0);
    const line = svc.logs.map((l) => JSON.parse(l)).find((l) => l.path === '/v1/systemone');
    expect(line).toMatchObject({ method: 'POST', status: 200, key: expect.stringMatching(/^dcd_api_…/) });
    expect(JSON.stringify(svc.logs)).not.toContain(key);

    svc.fake.respond(() => ({ status: 503 }));
    const down = await ask(key, { state: STATE, questions: { a: { type: 'noul' }, b: { type: 'noul', instructions: 'Is it urgent?' } } });
    expect(down.status).toBe(503);
    expect(down.body.code).toBe('engine_unavailable');
    expect((await usage(key)).freeUsed).toBe(2);
    expect((await svc.call('GET', '/v1/metrics')).body.api.samples).toBe(1);
  });

  it('lists the model it answers with to a key holder only; other methods are 405', async () => {
    const key = await start();
    const models = await svc.call('GET', '/v1/models', { key });
    expect(models.body.models).toEqual([
      { name: 'fake-logprobs-1', description: expect.stringContaining("decide's openai engine"), release_date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) },
    ]);
    const anonymous = await svc.call('GET', '/v1/models');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer');
    expect((await svc.call('POST', '/v1/models', { key })).headers.allow).toBe('GET');
    expect((await svc.call('GET', '/v1/systemone', { key })).headers.allow).toBe('POST');
    expect((await svc.call('POST', '/v1/systemone', { json: { state: STATE, questions: { a: { type: 'noul' } } } })).status).toBe(401);
  });

  it('is described in the OpenAPI document, bounds included', async () => {
    await start();
    const doc = (await svc.call('GET', '/openapi.json')).body;
    const post = doc.paths['/v1/systemone'].post;
    expect(post.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(post.responses).sort()).toEqual(['200', '400', '401', '402', '409', '413', '415', '422', '429', '502', '503', '504'].sort());
    expect(post.parameters.map((p: { name: string }) => p.name)).toEqual(['idempotency-key']);
    const { SystemOneRequest, SystemOneResponse, SystemOneAnswer, ModelList } = doc.components.schemas;
    expect(SystemOneRequest.required).toEqual(['state', 'questions']);
    expect(SystemOneResponse.required).toEqual(['model', 'answers', 'usage']);
    expect(SystemOneAnswer.oneOf.map((a: any) => a.properties.type.const)).toEqual(['noul', 'choice', 'score']);
    expect(JSON.stringify(SystemOneRequest)).toContain('2 to 9 level descriptions');
    expect(ModelList.properties.models.items.required).toEqual(['name', 'description', 'release_date']);
    expect(Object.keys(doc.paths['/v1/models'])).toEqual(['get']);
  });
});
