import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOUL } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';

const TOKEN = 'adm-0123456789abcdef0123456789abcdef-team';

describe('the operator API: keys and passes without a shell on the server', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI({ adminToken: TOKEN });
  });
  afterAll(() => svc.close());
  const admin = (method: string, path: string, json?: unknown) =>
    svc.call(method, path, { headers: { authorization: `Bearer ${TOKEN}` }, json });

  it('a missing, wrong or API-key token is one identical 401; the token never reaches the log or the ledger', async () => {
    const { key } = await svc.newKey();
    const answers = await Promise.all([
      svc.call('GET', '/v1/admin/keys'),
      svc.call('GET', '/v1/admin/keys', { headers: { authorization: `Bearer ${TOKEN}x` } }),
      svc.call('GET', '/v1/admin/keys', { headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}` } }),
      svc.call('GET', '/v1/admin/keys', { key }),
      svc.call('DELETE', `/v1/admin/keys/${key.slice(-4)}`, { key }),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: 'the admin token is missing or wrong; send Authorization: Bearer <token>',
        code: 'unauthorized',
        requestId: res.headers['x-request-id'],
      });
    }
    expect((await admin('GET', '/v1/admin/keys')).status).toBe(200);
    expect(svc.logs.join('\n')).not.toContain(TOKEN);
    for (const file of fs.readdirSync(svc.dir)) expect(fs.readFileSync(`${svc.dir}/${file}`).includes(TOKEN), file).toBe(false);
  });

  it('creates a named key (shown once), lists it with its last use, revokes it by hint: the key stops working at once', async () => {
    const pass = await admin('POST', '/v1/admin/passes');
    expect(pass.status).toBe(201);
    const created = await admin('POST', '/v1/admin/keys', { passId: pass.body.passId, name: 'billing service' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'billing service',
      passId: pass.body.passId,
      keyHint: `dcd_api_…${created.body.key.slice(-4)}`,
    });

    expect((await svc.call('POST', '/v1/decisions', { key: created.body.key, json: NOUL })).status).toBe(200);
    const listed = await admin('GET', `/v1/admin/keys?pass=${pass.body.passId}`);
    expect(listed.body.keys).toEqual([
      {
        id: created.body.id,
        keyHint: created.body.keyHint,
        name: 'billing service',
        passId: pass.body.passId,
        createdAt: created.body.createdAt,
        lastUsedAt: expect.any(String),
        revokedAt: null,
      },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);

    const revoked = await admin('DELETE', `/v1/admin/keys/${encodeURIComponent(created.body.keyHint)}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: created.body.id, alreadyRevoked: false });
    expect((await svc.call('POST', '/v1/decisions', { key: created.body.key, json: NOUL })).status).toBe(401);
    expect((await admin('DELETE', `/v1/admin/keys/${created.body.id}`)).body).toMatchObject({
      alreadyRevoked: true,
      revokedAt: revoked.body.revokedAt,
    });

    const passes = await admin('GET', '/v1/admin/passes');
    expect(passes.body.passes.find((p: { passId: string }) => p.passId === pass.body.passId)).toMatchObject({ keys: 1, activeKeys: 0 });
    expect((await admin('GET', `/v1/admin/passes/${pass.body.passId}`)).body.keys).toHaveLength(1);
  });

  it('bad input is named: an unknown pass 404, a bad name 400 naming the field, a reference that names no key 400, an unknown key 404', async () => {
    expect((await admin('POST', '/v1/admin/keys', { passId: 'pass_nope' })).body).toEqual({
      error: 'no pass pass_nope',
      code: 'not_found',
      requestId: expect.any(String),
    });
    // A control character, a bidirectional override ("exe.png" shown), zero-width characters only.
    for (const name of ['a\u0007b', '\u202egnp.exe', '\u200b\u200b']) {
      const bad = await admin('POST', '/v1/admin/keys', { name });
      expect(bad.status, JSON.stringify(name)).toBe(400);
      expect(bad.body.issues).toEqual([
        { field: 'name', message: '1 to 100 characters, without control or invisible characters or surrounding spaces' },
      ]);
    }
    expect((await admin('POST', '/v1/admin/keys', { extra: 1 })).body.issues).toEqual([{ field: 'extra', message: 'not allowed here' }]);
    expect((await admin('DELETE', '/v1/admin/keys/not-a-key')).status).toBe(400);
    expect((await admin('DELETE', '/v1/admin/keys/zzzz')).body).toEqual({
      error: 'no key zzzz',
      code: 'not_found',
      requestId: expect.any(String),
    });
    expect((await admin('GET', '/v1/admin/keys?pass=pass_nope')).status).toBe(404);
    expect((await admin('GET', '/v1/admin/passes/pass_nope')).status).toBe(404);
    expect((await admin('PUT', '/v1/admin/keys')).headers.allow).toBe('GET, POST');
  });
});

describe('the operator API, off', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());

  it('says how to turn it on, whatever is sent', async () => {
    for (const [method, path] of [
      ['GET', '/v1/admin/keys'],
      ['DELETE', '/v1/admin/keys/abcd'],
      ['GET', '/v1/admin/passes'],
    ]) {
      const res = await svc.call(method, path, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe(
        'the operator API is off on this server: set DECIDE_ADMIN_TOKEN (or DECIDE_ADMIN_TOKEN_FILE) to turn it on',
      );
    }
  });
});

describe('wrong admin tokens are slowed', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI({ adminToken: TOKEN });
  });
  afterAll(() => svc.close());

  it('ten a minute from one address are 401; past them 429 with Retry-After, the right token too, until the minute is over; no token stays 401', async () => {
    const guess = (token: string) => svc.call('GET', '/v1/admin/passes', { headers: { authorization: `Bearer ${token}` } });
    expect((await guess(TOKEN)).status).toBe(200);
    for (let n = 0; n < 10; n++) expect((await guess(`adm-guess-${n}-0123456789abcdef0123456789`)).status).toBe(401);
    for (const token of ['adm-guess-10-0123456789abcdef0123456789', TOKEN]) {
      const refused = await guess(token);
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.text).not.toContain(TOKEN);
    }
    // No token is no guess: still the 401.
    expect((await svc.call('GET', '/v1/admin/passes')).status).toBe(401);
  });
});
