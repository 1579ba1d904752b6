import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { NOUL } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';

/**
 * A key revoked beside the server, by another process on the same SQLite file (the
 * server remembers keys it looked up for a minute): refused at once on every route,
 * the model list and a replay of a kept answer included. PostgreSQL's servers:
 * test/ledger/postgres-servers.test.ts.
 */
describe('a key revoked by another process on the SQLite file', () => {
  let svc: Running | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it('is refused at once: models 401, the kept answer not replayed', async () => {
    svc = await startWithOpenAI();
    const { key, keyId } = await svc.newKey();
    const kept = { key, json: NOUL, headers: { 'Idempotency-Key': 'kept' } };
    expect((await svc.call('POST', '/v1/decisions', kept)).status).toBe(200);
    expect((await svc.call('GET', '/v1/models', { key })).status).toBe(200);

    const other = new Database(svc.dbPath);
    other.prepare('UPDATE keys SET revoked_at = ? WHERE id = ?').run(new Date().toISOString(), keyId);
    other.close();

    expect((await svc.call('GET', '/v1/models', { key })).status).toBe(401);
    const replay = await svc.call('POST', '/v1/decisions', kept);
    expect(replay.status).toBe(401);
    expect(replay.headers['idempotent-replayed']).toBeUndefined();
    expect(svc.fake.requests.length).toBe(2); // the first decision's two calls only
  });
});
