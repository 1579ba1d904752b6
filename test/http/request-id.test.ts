import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOUL } from '../support/requests.js';
import { startWithEngine, startWithSystemOne } from '../support/service.js';

const MADE = /^req_[0-9a-f]{32}$/;
const QUESTION = { state: 'The invoice was paid twice.', questions: { refund: { type: 'noul' } } };

describe('X-Request-Id, end to end (systemone engine)', () => {
  let svc: Awaited<ReturnType<typeof startWithSystemOne>>;
  beforeAll(async () => {
    svc = await startWithSystemOne();
  });
  afterAll(() => svc.close());

  it("a plain id the caller sends is its request's id: in the header, the error body and the access line", async () => {
    const id = 'trace-2026_11=27-0042';
    const res = await svc.call('GET', '/v1/usage', { headers: { 'X-Request-Id': id } });
    expect(res.status).toBe(401);
    expect(res.headers['x-request-id']).toBe(id);
    expect(res.body).toEqual({ error: expect.any(String), code: 'unauthorized', requestId: id });
    expect(svc.logs.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ path: '/v1/usage', status: 401, request: id }),
    );
  });

  it('an id that is not a plain token of at most 128 characters is never echoed: the request gets a fresh one', async () => {
    // (A line break cannot arrive: Node's HTTP parser answers 400 to a folded header line before decide sees it.)
    for (const sent of ['a'.repeat(129), 'trace 42', 'tab\there', 'x"}{"forged":"line', 'a;b', 'v1.2:3']) {
      const res = await svc.call('GET', '/v1/nope', { headers: { 'X-Request-Id': sent } });
      expect(res.status, sent).toBe(404);
      expect(res.headers['x-request-id'], sent).toMatch(MADE);
      expect(res.body.requestId, sent).toBe(res.headers['x-request-id']);
      expect(svc.logs.join('\n'), sent).not.toContain(sent);
    }
    // The longest accepted, and one sent without any.
    const longest = 'a'.repeat(128);
    expect((await svc.call('GET', '/v1/nope', { headers: { 'X-Request-Id': longest } })).headers['x-request-id']).toBe(longest);
    const none = await svc.call('GET', '/v1/nope');
    expect(none.headers['x-request-id']).toMatch(MADE);
    expect(none.body.requestId).toBe(none.headers['x-request-id']);
  });

  it('reaches the System One server the engine asks, in its X-Request-Id', async () => {
    const { key } = await svc.newKey();
    svc.fake.requests.length = 0;
    const named = await svc.call('POST', '/v1/decisions', { key, json: NOUL, headers: { 'X-Request-Id': 'caller-7' } });
    expect(named.status).toBe(200);
    expect(svc.fake.requests.length).toBeGreaterThan(0);
    for (const request of svc.fake.requests) expect(request.headers['x-request-id']).toBe('caller-7');

    svc.fake.requests.length = 0;
    const made = await svc.call('POST', '/v1/systemone', { key, json: QUESTION });
    expect(made.status).toBe(200);
    expect(made.headers['x-request-id']).toMatch(MADE);
    expect(svc.fake.requests.map((r) => r.headers['x-request-id'])).toEqual(svc.fake.requests.map(() => made.headers['x-request-id']));
  });

  it('System One errors carry it as detail.x_request_id; the 422 detail array stays as the format has it', async () => {
    const { key } = await svc.newKey();
    const refused = await svc.call('POST', '/v1/systemone', { json: QUESTION, headers: { 'X-Request-Id': 'so-401' } });
    expect(refused.status).toBe(401);
    expect(refused.headers['x-typesafe-request-id']).toBe('so-401');
    expect(refused.body).toEqual({
      detail: { error_type: 'authentication_error', message: expect.any(String), x_code: 'unauthorized', x_request_id: 'so-401' },
    });

    const invalid = await svc.call('POST', '/v1/systemone', {
      key,
      json: { state: 'x', questions: {} },
      headers: { 'X-Request-Id': 'so-422' },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.headers['x-request-id']).toBe('so-422');
    expect(invalid.body).toEqual({
      detail: [{ loc: ['body', 'questions'], msg: 'must hold 1 to 64 questions (got 0)', type: 'value_error' }],
    });
  });

  it('a refusal before the route (another Host) is in the format too, with its request id', async () => {
    const { key } = await svc.newKey();
    const port = new URL(svc.url).port;
    for (const [method, path] of [
      ['POST', '/v1/systemone'],
      ['GET', '/v1/models'],
    ] as const) {
      const refused = await svc.call(method, path, {
        key,
        json: method === 'POST' ? QUESTION : undefined,
        headers: { host: `evil.example:${port}`, 'X-Request-Id': 'so-403' },
      });
      expect(refused.status, path).toBe(403);
      expect(refused.headers['x-typesafe-request-id'], path).toBe('so-403');
      expect(refused.body, path).toEqual({
        detail: {
          error_type: expect.any(String),
          message: expect.stringContaining('evil.example'),
          x_code: 'forbidden_origin',
          x_request_id: 'so-403',
        },
      });
    }
  });
});

describe('X-Request-Id in the error line of a bug', () => {
  let svc: Awaited<ReturnType<typeof startWithEngine>>;
  beforeAll(async () => {
    svc = await startWithEngine({
      name: 'buggy',
      model: 'buggy-1',
      ask: async () => {
        throw new TypeError('a bug in the engine');
      },
    });
  });
  afterAll(() => svc.close());

  it('the 500 names the request in its body, and the error line in the log names it too', async () => {
    const { key } = await svc.newKey();
    svc.logs.length = 0;
    const res = await svc.call('POST', '/v1/decisions', { key, json: NOUL, headers: { 'X-Request-Id': 'bug-report-1' } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal error; the failure was logged', code: 'internal_error', requestId: 'bug-report-1' });
    const lines = svc.logs.map((line) => JSON.parse(line));
    expect(lines.find((line) => line.level === 'error')).toMatchObject({
      path: '/v1/decisions',
      request: 'bug-report-1',
      error: expect.stringContaining('a bug in the engine'),
    });
    expect(lines.find((line) => line.status === 500)).toMatchObject({ request: 'bug-report-1' });
  });
});
