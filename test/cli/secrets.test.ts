import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { call } from '../support/api.js';
import { openaiEnv, runJson, startServe, tempDb, useServeFixture } from '../support/cli.js';
import { CHOICE, NOUL, SCORE } from '../support/requests.js';

/** The engine's provider key, distinctive enough that any leak is found. */
const ENGINE_SECRET = 'sk-prov1der-S3CRET-must-never-leak-91f3';
const LOG_FIELDS = ['key', 'method', 'ms', 'path', 'request', 'status', 'time'];

/** The ledger's files as they are on disk right now (the WAL ones may not exist). */
function ledgerBytes(db: string): Array<{ file: string; bytes: Buffer }> {
  return [db, `${db}-wal`, `${db}-shm`].filter((file) => fs.existsSync(file)).map((file) => ({ file, bytes: fs.readFileSync(file) }));
}

function expectNoSecretsIn(files: Array<{ file: string; bytes: Buffer }>, secrets: string[]) {
  for (const { file, bytes } of files) {
    for (const secret of secrets) {
      expect(bytes.includes(Buffer.from(secret)), `${secret.slice(0, 12)}… found in ${file}`).toBe(false);
      // Also not as UTF-16 (SQLite can store text that way).
      expect(bytes.includes(Buffer.from(secret, 'utf16le')), `${secret.slice(0, 12)}… (UTF-16) found in ${file}`).toBe(false);
    }
  }
}

describe('decide serve keeps secrets out of its output and its ledger', () => {
  const serve = useServeFixture();

  it('neither the API key nor the engine secret leaks; the access log has the hint and no body', async () => {
    const { fake, tmp } = serve;
    const pass = await runJson(['pass', 'create', '--create', '--db', tmp.db]);
    await runJson(['pass', 'fund', '--pass', pass.passId, '--credits', '10', '--db', tmp.db]);
    const { key, keyHint } = await runJson(['key', 'create', '--create', '--pass', pass.passId, '--db', tmp.db]);
    // A well-formed key of another ledger: unknown here.
    const other = tempDb();
    const stranger = (await runJson(['key', 'create', '--create', '--db', other.db])).key as string;
    other.remove();
    const mistyped = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    const secrets = [key, ENGINE_SECRET, stranger, mistyped];

    const server = await startServe(['--db', tmp.db], openaiEnv(fake.url, ENGINE_SECRET));
    fake.requests.length = 0;

    const ok = [
      await call(server.url, 'POST', '/v1/decisions', { key, json: CHOICE }),
      await call(server.url, 'POST', '/v1/decisions', { key, json: NOUL, headers: { 'idempotency-key': 'retry-1' } }),
      await call(server.url, 'POST', '/v1/decisions', { key, json: { ...SCORE, depth: 'stress' } }),
    ];
    expect(ok.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(ok[2].body.access).toEqual({ type: 'pass', passCredits: 5 });
    // The engine got the secret: what follows proves it went nowhere else.
    expect(fake.requests.length).toBeGreaterThan(0);
    expect(fake.requests.every((r) => r.headers.authorization === `Bearer ${ENGINE_SECRET}`)).toBe(true);

    fake.respond(() => ({ status: 500, body: JSON.stringify({ error: { message: `upstream broke; key ${ENGINE_SECRET}` } }) }));
    const failed = await call(server.url, 'POST', '/v1/decisions', { key, json: CHOICE });
    expect(failed.status).toBe(503);
    expect(failed.body.code).toBe('engine_unavailable');
    expect(failed.text).not.toContain(ENGINE_SECRET);
    fake.respond();

    for (const wrong of [stranger, mistyped]) {
      const refused = await call(server.url, 'POST', '/v1/decisions', { key: wrong, json: CHOICE });
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe('unauthorized');
      expect(refused.text).not.toContain(wrong);
    }
    expect((await call(server.url, 'GET', '/v1/usage', { key })).status).toBe(200);
    const revoked = await call(server.url, 'DELETE', '/v1/key', { key });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ revoked: true, keyHint });
    expect((await call(server.url, 'GET', '/v1/usage', { key })).status).toBe(401);

    // While the server still runs (the WAL holds the recent writes).
    const running = ledgerBytes(tmp.db);
    expect(running.map((f) => f.file)).toContain(`${tmp.db}-wal`);
    expectNoSecretsIn(running, secrets);
    // The hint is in the ledger, so the search really looks through the writes.
    expect(running.some((f) => f.bytes.includes(Buffer.from(keyHint)))).toBe(true);

    expect(await server.stop()).toEqual({ code: 0, signal: null });
    expectNoSecretsIn(ledgerBytes(tmp.db), secrets);

    const { stdout, stderr } = server.output();
    for (const secret of secrets) {
      expect(stdout).not.toContain(secret);
      expect(stderr).not.toContain(secret);
    }

    // stdout: the listening line, then one JSON access-log line per request.
    const [listening, ...log] = stdout.trimEnd().split('\n');
    expect(listening).toBe(`decide listening on ${server.url}`);
    const lines = log.map((line) => JSON.parse(line));
    expect(lines.map((l) => `${l.method} ${l.path} ${l.status}`)).toEqual([
      'POST /v1/decisions 200',
      'POST /v1/decisions 200',
      'POST /v1/decisions 200',
      'POST /v1/decisions 503',
      'POST /v1/decisions 401',
      'POST /v1/decisions 401',
      'GET /v1/usage 200',
      'DELETE /v1/key 200',
      'GET /v1/usage 401',
    ]);
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual(LOG_FIELDS);
      expect(typeof line.ms).toBe('number');
      expect(line.ms).toBeGreaterThanOrEqual(0);
      expect(Date.parse(line.time)).not.toBeNaN();
    }
    expect(lines.map((l) => l.key)).toEqual([keyHint, keyHint, keyHint, keyHint, null, null, keyHint, keyHint, null]);
    // No request body: neither questions, contexts, options nor the idempotency key.
    for (const text of [CHOICE.question, CHOICE.context, NOUL.question, SCORE.context, 'PostgreSQL', 'retry-1']) {
      expect(stdout).not.toContain(text);
    }
  });
});
