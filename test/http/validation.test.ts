import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHOICE, NOUL, SCORE, withKey } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';

let svc: Running;
let key: string;
beforeAll(async () => {
  svc = await startWithOpenAI();
  key = (await svc.newKey(5)).key;
});
afterAll(() => svc.close());

describe('route and method come first', () => {
  it.each([
    ['GET', '/v1/nope'],
    ['POST', '/v2/decisions'],
    ['GET', '/v1'],
  ])('%s %s is 404 not_found, key or not', async (method, path) => {
    const res = await svc.call(method, path);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    expect(res.body.error).toContain(path);
  });

  it.each([
    ['GET', '/v1/decisions', 'POST'],
    ['PUT', '/v1/decisions', 'POST'],
    ['POST', '/v1/usage', 'GET'],
    ['POST', '/v1/metrics', 'GET'],
    ['GET', '/v1/key', 'DELETE'],
    ['DELETE', '/openapi.json', 'GET'],
  ])('%s %s is 405 with Allow: %s, before authentication', async (method, path, allow) => {
    const res = await svc.call(method, path);
    expect(res.status).toBe(405);
    expect(res.body.code).toBe('method_not_allowed');
    expect(res.headers.allow).toBe(allow);
  });
});

describe('authentication', () => {
  const unknown = async () => {
    const other = await svc.newKey();
    await svc.call('DELETE', '/v1/key', { key: other.key });
    return other.key;
  };

  it('gives one identical 401 for a missing, malformed, mistyped, unknown or revoked key', async () => {
    const revoked = await unknown();
    const mistyped = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    const answers = await Promise.all([
      svc.call('POST', '/v1/decisions', { json: CHOICE }),
      svc.call('POST', '/v1/decisions', { json: CHOICE, headers: { authorization: key } }),
      svc.call('POST', '/v1/decisions', { json: CHOICE, headers: { authorization: `Basic ${key}` } }),
      svc.call('POST', '/v1/decisions', { json: CHOICE, key: 'dcd_api_short' }),
      svc.call('POST', '/v1/decisions', { json: CHOICE, key: mistyped }),
      svc.call('POST', '/v1/decisions', { json: CHOICE, key: revoked }),
      svc.call('GET', '/v1/usage', { key: revoked }),
      svc.call('DELETE', '/v1/key', { key: revoked }),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(401);
      // Identical but for the request's own id.
      expect({ ...res.body, requestId: res.headers['x-request-id'] }).toEqual({ ...answers[0].body, requestId: res.body.requestId });
      expect(res.body.code).toBe('unauthorized');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('checks the key before the body', async () => {
    const res = await svc.call('POST', '/v1/decisions', { raw: '{not json', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(401);
  });

  it('accepts the scheme in any case', async () => {
    const res = await svc.call('GET', '/v1/usage', { headers: { authorization: `bearer ${key}` } });
    expect(res.status).toBe(200);
  });
});

describe('body size, media type and JSON', () => {
  it('413 for a body over 64 KiB, with a length header', async () => {
    const res = await svc.call('POST', '/v1/decisions', { key, json: { ...CHOICE, pad: 'x'.repeat(70_000) } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
    expect(res.body.error).toContain('64 KiB');
  });

  it('413 for a chunked body over 64 KiB (no length header)', async () => {
    async function* chunks() {
      for (let i = 0; i < 70; i++) yield Buffer.alloc(1024, 0x20);
    }
    const res = await svc.call('POST', '/v1/decisions', {
      key,
      raw: chunks() as unknown as string,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
  });

  it('413 comes before 415', async () => {
    const res = await svc.call('POST', '/v1/decisions', { key, raw: 'x'.repeat(70_000), headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(413);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
    [undefined, 'application/json'],
  ])('415 for content type %s', async (type, mentioned) => {
    const headers: Record<string, string> = type ? { 'content-type': type } : {};
    const res = await svc.call('POST', '/v1/decisions', { key, raw: JSON.stringify(CHOICE), headers });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
    expect(res.body.error).toContain(mentioned);
  });

  it('accepts application/json with a charset', async () => {
    svc.fake.respond();
    const res = await svc.call('POST', '/v1/decisions', {
      key,
      raw: JSON.stringify(NOUL),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(200);
  });

  it.each([
    ['{"mode": "choice",', 'not valid JSON'],
    ['', 'empty'],
    ['   ', 'empty'],
  ])('400 invalid_json for %j', async (raw, says) => {
    const res = await svc.call('POST', '/v1/decisions', { key, raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_json');
    expect(res.body.error).toContain(says);
  });
});

describe('the DecisionRequest', () => {
  const emoji = (n: number) => '😀'.repeat(n);
  const cases: Array<[string, unknown, string]> = [
    ['a body that is an array', [CHOICE], 'body'],
    ['no mode', { question: CHOICE.question, context: CHOICE.context }, 'mode'],
    ['an unknown mode', { ...CHOICE, mode: 'rank' }, 'mode'],
    ['no question', { ...NOUL, question: undefined }, 'question'],
    ['a 7-character question', { ...NOUL, question: 'Go now?' }, 'question'],
    ['a question of 7 emoji', { ...NOUL, question: emoji(7) }, 'question'],
    ['a question of white space', { ...NOUL, question: '          ' }, 'question'],
    ['a question of eight zero-width spaces', { ...NOUL, question: '\u200B'.repeat(8) }, 'question'],
    ['a question of 7 characters and invisible ones', { ...NOUL, question: 'Go\u00AD now\u2060?\uFEFF' }, 'question'],
    ['a 301-character question', { ...NOUL, question: 'q'.repeat(301) }, 'question'],
    ['a question that is a number', { ...NOUL, question: 123456789 }, 'question'],
    ['a 19-character context', { ...NOUL, context: 'Too short a context' }, 'context'],
    ['a context of 2001 emoji', { ...NOUL, context: emoji(2001) }, 'context'],
    ['a context short once trimmed', { ...NOUL, context: `   ${'c'.repeat(19)}     ` }, 'context'],
    ['choice without options', { ...CHOICE, options: undefined }, 'options'],
    ['one option', { ...CHOICE, options: ['PostgreSQL'] }, 'options'],
    ['seven options', { ...CHOICE, options: ['aa', 'bb', 'cc', 'dd', 'ee', 'ff', 'gg'] }, 'options'],
    ['a 1-character option', { ...CHOICE, options: ['PostgreSQL', 'M'] }, 'options.1'],
    ['a 101-character option', { ...CHOICE, options: ['o'.repeat(101), 'MongoDB'] }, 'options.0'],
    ['options equal but for case and spaces', { ...CHOICE, options: ['MySQL', ' mysql '] }, 'options.1'],
    ['options equal but for a zero-width space', { ...CHOICE, options: ['MongoDB', 'Mongo\u200BDB'] }, 'options.1'],
    ['options equal but for Unicode normalisation', { ...CHOICE, options: ['Caf\u00E9', 'cafe\u0301'] }, 'options.1'],
    ['options with noul', { ...NOUL, options: ['yes', 'no'] }, 'options'],
    ['levels with choice', { ...CHOICE, levels: ['low', 'mid', 'high'] }, 'levels'],
    ['score without levels', { ...SCORE, levels: undefined }, 'levels'],
    ['two levels', { ...SCORE, levels: ['low', 'high'] }, 'levels'],
    ['a 1-character level', { ...SCORE, levels: ['low', 'm', 'high'] }, 'levels.1'],
    ['an unknown field', { ...NOUL, priority: 'high' }, 'priority'],
    ['a __proto__ key', withKey(NOUL, '__proto__'), '__proto__'],
    ['a constructor key', withKey(NOUL, 'constructor'), 'constructor'],
    ['an unknown depth', { ...NOUL, depth: 'deep' }, 'depth'],
  ];

  it.each(cases)('400 invalid_request for %s, naming %s', async (_, json, field) => {
    const res = await svc.call('POST', '/v1/decisions', { key, json });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    expect(res.body.error).toMatch(new RegExp(`(^|; )${field.replace('.', '\\.')}\\b`));
  });

  it("says what is wrong in a sentence, never in zod's words: a missing field is required, a wrong kind named", async () => {
    const cases: Array<[unknown, string]> = [
      [{ ...NOUL, context: undefined }, 'context: is required'],
      [{ ...NOUL, question: 123456789 }, 'question: must be a string (got a number)'],
      [{ ...CHOICE, options: 'PostgreSQL' }, 'options: must be an array (got a string)'],
      [{ ...NOUL, context: null }, 'context: must be a string (got null)'],
    ];
    for (const [json, sentence] of cases) {
      const res = await svc.call('POST', '/v1/decisions', { key, json });
      expect(res.status, sentence).toBe(400);
      expect(res.body.error.split('; ')[0]).toBe(sentence);
      expect(res.body.error).not.toMatch(/Invalid input|received/);
    }
  });

  it('counts no invisible character: eight zero-width spaces are an empty question, not eight characters', async () => {
    const res = await svc.call('POST', '/v1/decisions', { key, json: { ...NOUL, question: '\u200B'.repeat(8) } });
    expect(res.body).toMatchObject({ error: 'question: must not be empty', code: 'invalid_request' });
    const twin = await svc.call('POST', '/v1/decisions', { key, json: { ...CHOICE, options: ['PostgreSQL', 'Postgre\u200DSQL'] } });
    expect(twin.body.error).toBe(
      'options.1: must be distinct (case-insensitively, ignoring invisible characters); "PostgreSQL" repeats an earlier option',
    );
  });

  it('passes the text on in NFC without invisible characters: the answer spells it so', async () => {
    svc.fake.respond();
    const json = {
      ...CHOICE,
      question: `\uFEFF${CHOICE.question.replace('database', 'data\u200Bbase')}`,
      options: ['Postgre\u00ADSQL', 'Cafe\u0301DB'],
    };
    const res = await svc.call('POST', '/v1/decisions', { key, json });
    expect(res.status).toBe(200);
    expect(res.body.question).toBe(CHOICE.question);
    expect(Object.keys(res.body.result.probabilities)).toEqual(['PostgreSQL', 'CaféDB']);
  });

  it('400 for an Idempotency-Key that is not printable ASCII or too long', async () => {
    for (const value of ['x'.repeat(256), 'clé-é']) {
      const res = await svc.call('POST', '/v1/decisions', { key, json: NOUL, headers: { 'idempotency-key': value } });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('Idempotency-Key');
    }
  });

  it('accepts the bounds exactly: 8 and 300 code points, 2000 emoji, 6 options of 100', async () => {
    svc.fake.respond();
    const ok = [
      { ...NOUL, question: emoji(8) },
      { ...NOUL, question: 'q'.repeat(300), context: emoji(2000) },
      { ...CHOICE, options: ['a', 'b', 'c', 'd', 'e', 'f'].map((c) => c.repeat(100)) },
    ];
    for (const json of ok) expect((await svc.call('POST', '/v1/decisions', { key, json })).status).toBe(200);
  });

  it('charged nothing for any refused request', async () => {
    const fresh = await svc.newKey(3);
    const before = svc.fake.requests.length;
    const refused = [
      svc.call('POST', '/v1/decisions', { key: fresh.key, json: { ...NOUL, question: 'short' } }),
      svc.call('POST', '/v1/decisions', { key: fresh.key, raw: '{', headers: { 'content-type': 'application/json' } }),
      svc.call('POST', '/v1/decisions', { key: fresh.key, raw: '{}', headers: { 'content-type': 'text/plain' } }),
      svc.call('POST', '/v1/decisions', { key: fresh.key, json: { ...NOUL, pad: 'x'.repeat(70_000) } }),
      svc.call('GET', '/v1/decisions', { key: fresh.key }),
    ];
    for (const res of await Promise.all(refused)) expect(res.status).toBeGreaterThanOrEqual(400);
    const usage = await svc.call('GET', '/v1/usage', { key: fresh.key });
    expect(usage.body).toMatchObject({ freeUsed: 0, freeRemaining: 20, passCredits: 3 });
    expect(svc.fake.requests.length).toBe(before);
  });
});
