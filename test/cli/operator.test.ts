import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from '../support/api.js';
import { openaiEnv, runCli, runJson, startServe, useServeFixture } from '../support/cli.js';
import { CHOICE } from '../support/requests.js';

const KEY = /^dcd_api_[0-9A-Za-z]{49}$/;
const ENGINE_SECRET = 'sk-operator-test-engine-secret-4242';

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('operator commands against the ledger file', () => {
  const serve = useServeFixture();
  /** A new ledger.db in its own temp folder, removed after the test. */
  const fresh = () => serve.tempDb().db;

  it('key create --json prints { key, keyHint, passId } once, and the key works against decide serve', async () => {
    const db = fresh();
    const result = await runCli(['key', 'create', '--create', '--json', '--db', db]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]);
    expect(Object.keys(created).sort()).toEqual(['key', 'keyHint', 'passId']);
    expect(created.key).toMatch(KEY);
    expect(created.keyHint).toBe(`dcd_api_…${created.key.slice(-4)}`);
    expect(created.passId).toMatch(/^pass_/);
    expect(occurrences(result.stdout, created.key)).toBe(1);
    // Which ledger it went into, by its absolute path, on stderr: the key is usable only by a server on that file.
    expect(result.stderr).toBe(`decide: key ${created.keyHint} created in the ledger ${path.resolve(db)}\n`);

    // Two creations give two different keys.
    const other = await runJson(['key', 'create', '--create', '--db', db]);
    expect(other.key).not.toBe(created.key);

    const server = await startServe(['--db', db], openaiEnv(serve.fake.url, ENGINE_SECRET));
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const before = serve.fake.requests.length;
    const res = await call(server.url, 'POST', '/v1/decisions', { key: created.key, json: CHOICE });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('m');
    expect(res.body.access).toEqual({ type: 'free', freeRemaining: 19 });
    expect(Object.keys(res.body.result.probabilities)).toEqual(['PostgreSQL', 'MongoDB']);
    // The engine was really called, with the configured secret.
    const sent = serve.fake.requests.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((r) => r.headers.authorization === `Bearer ${ENGINE_SECRET}`)).toBe(true);

    // A key of another ledger is unknown here.
    const stranger = await runJson(['key', 'create', '--create', '--db', fresh()]);
    const refused = await call(server.url, 'POST', '/v1/decisions', { key: stranger.key, json: CHOICE });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthorized');
  });

  it('pass create, fund (twice), key create --pass, pass show: credits and the key hint', async () => {
    const db = fresh();
    const pass = await runJson(['pass', 'create', '--create', '--db', db]);
    expect(pass.passId).toMatch(/^pass_/);
    expect(Date.parse(pass.createdAt)).not.toBeNaN();

    const empty = await runJson(['pass', 'show', '--pass', pass.passId, '--db', db]);
    expect(empty).toMatchObject({ passId: pass.passId, passCredits: 0, fundedEver: false, keys: [] });

    const funded = await runCli(['pass', 'fund', '--pass', pass.passId, '--credits', '7', '--db', db]);
    expect(funded.code).toBe(0);
    expect(funded.stdout).toBe(`pass ${pass.passId} now holds 7 credits\n`);
    const again = await runJson(['pass', 'fund', '--pass', pass.passId, '--credits', '3', '--db', db]);
    expect(again).toEqual({ passId: pass.passId, passCredits: 10 });

    const key = await runJson(['key', 'create', '--create', '--pass', pass.passId, '--db', db]);
    expect(key.passId).toBe(pass.passId);
    expect(key.key).toMatch(KEY);

    const shown = await runJson(['pass', 'show', '--pass', pass.passId, '--db', db]);
    expect(shown.passId).toBe(pass.passId);
    expect(shown.passCredits).toBe(10);
    expect(shown.fundedEver).toBe(true);
    expect(shown.keys).toHaveLength(1);
    expect(shown.keys[0]).toMatchObject({ keyHint: key.keyHint, revokedAt: null });
    // The pass shows the hint, never the key.
    expect(JSON.stringify(shown)).not.toContain(key.key);

    const human = await runCli(['pass', 'show', '--pass', pass.passId, '--db', db]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`pass ${pass.passId}: 10 credits`);
    expect(human.stdout).toContain(key.keyHint);
    expect(human.stdout).not.toContain('never funded');

    // The running server sees the operator's funding on its next request.
    const server = await startServe(['--db', db], openaiEnv(serve.fake.url, ENGINE_SECRET));
    const usage = await call(server.url, 'GET', '/v1/usage', { key: key.key });
    expect(usage.status).toBe(200);
    expect(usage.body.passCredits).toBe(10);
    await runCli(['pass', 'fund', '--pass', pass.passId, '--credits', '5', '--db', db]);
    expect((await call(server.url, 'GET', '/v1/usage', { key: key.key })).body.passCredits).toBe(15);
  });

  it('fund of an unknown pass: exit 66 naming the pass and the ledger, and no pass comes into being', async () => {
    const db = fresh();
    await runJson(['pass', 'create', '--create', '--db', db]);
    const result = await runCli(['pass', 'fund', '--pass', 'pass_doesnotexist', '--credits', '5', '--db', db]);
    expect(result.code).toBe(66);
    expect(result.stderr).toBe(`decide: no pass pass_doesnotexist in the ledger ${path.resolve(db)}\n`);
    expect(result.stdout).toBe('');
    const show = await runCli(['pass', 'show', '--pass', 'pass_doesnotexist', '--db', db]);
    expect(show.code).toBe(66);
    expect(show.stderr).toContain('no pass pass_doesnotexist');
    const key = await runCli(['key', 'create', '--create', '--pass', 'pass_doesnotexist', '--db', db]);
    expect(key.code).toBe(66);
    expect(key.stdout).toBe('');
  });

  const notDigits = ['0', 'abc', '-3', '2.5', '1e3', '0x10', ' 7', '+5', '', '١٢', '9007199254740993', '1000000001'];
  it.each(notDigits)('--credits %j is refused by name, without a stack, and the balance stays', async (credits) => {
    const db = fresh();
    const pass = await runJson(['pass', 'create', '--create', '--db', db]);
    const result = await runCli(['pass', 'fund', '--pass', pass.passId, '--credits', credits, '--db', db]);
    expect(result.code).not.toBe(0);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain(
      `--credits must be a whole number from 1 to 1000000000, in digits only (no sign, exponent, hex or spaces); got "${credits}"`,
    );
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
    const shown = await runJson(['pass', 'show', '--pass', pass.passId, '--db', db]);
    expect(shown).toMatchObject({ passCredits: 0, fundedEver: false });
  });

  it('--credits takes up to 1000000000 at once, leading zeros and all', async () => {
    const db = fresh();
    const pass = await runJson(['pass', 'create', '--create', '--db', db]);
    expect(await runJson(['pass', 'fund', '--pass', pass.passId, '--credits', '1000000000', '--db', db])).toMatchObject({
      passCredits: 1e9,
    });
    expect(await runJson(['pass', 'fund', '--pass', pass.passId, '--credits', '007', '--db', db])).toMatchObject({ passCredits: 1e9 + 7 });
  });

  it('fund without --credits names the missing option', async () => {
    const result = await runCli(['pass', 'fund', '--pass', 'pass_x', '--db', fresh()]);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain("required option '--credits <n>' not specified");
  });

  it('human key create shows the key once and says it is shown once', async () => {
    const db = fresh();
    const result = await runCli(['key', 'create', '--create', '--db', db]);
    expect(result.code).toBe(0);
    const keys: string[] = result.stdout.match(/dcd_api_[0-9A-Za-z]+/g) ?? [];
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(KEY);
    expect(result.stdout.split('\n')[0]).toBe(keys[0]);
    expect(result.stdout).toMatch(/shown once/i);
    expect(result.stdout).toContain(`dcd_api_…${keys[0].slice(-4)}`);
    const passId = /pass (pass_\w+)/.exec(result.stdout)?.[1];
    expect(passId).toBeDefined();
    const shown = await runJson(['pass', 'show', '--pass', passId!, '--db', db]);
    expect(shown.keys.map((k: { keyHint: string }) => k.keyHint)).toEqual([`dcd_api_…${keys[0].slice(-4)}`]);
  });
});
