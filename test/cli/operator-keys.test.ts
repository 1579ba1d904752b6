import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from '../support/api.js';
import { openaiEnv, runCli, runCliIn, runJson, startServe, useServeFixture } from '../support/cli.js';
import { CHOICE } from '../support/requests.js';

const ENGINE_SECRET = 'sk-operator-keys-engine-secret-1212';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('the operator manages keys: names, list, last use, revoke, passes', () => {
  const serve = useServeFixture();

  it('run from another folder, an operator command makes no ledger there and names the file it looked for (66)', async () => {
    const { dir } = serve.tempDb();
    for (const args of [
      ['pass', 'show', '--pass', 'pass_x'],
      ['pass', 'fund', '--pass', 'pass_x', '--credits', '5'],
      ['key', 'list'],
      ['pass', 'list'],
      ['key', 'create'],
      ['pass', 'create'],
      ['key', 'revoke', 'wxyz'],
    ]) {
      const result = await runCliIn(dir, args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(66);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `decide: there is no ledger at ${path.join(dir, 'decide.db')}: run this where decide serve runs, or point --db (or DECIDE_DB) at its ledger; --create makes a new one\n`,
      );
    }
    expect(fs.readdirSync(dir)).toEqual([]);
    // Where a new ledger is meant: --create, and the file is named.
    const made = await runCliIn(dir, ['key', 'create', '--create', '--json']);
    expect(made.code).toBe(0);
    expect(made.stderr).toContain(`created in the ledger ${path.join(dir, 'decide.db')}`);
    expect(fs.existsSync(path.join(dir, 'decide.db'))).toBe(true);
  });

  it('key create --name; key list shows id, hint, name, pass, created, last used and revoked; --pass filters; pass list counts', async () => {
    const { db } = serve.tmp;
    const ci = await runJson(['key', 'create', '--create', '--name', 'ci runner (payments)', '--db', db]);
    const laptop = await runJson(['key', 'create', '--pass', ci.passId, '--name', 'Ana’s laptop', '--db', db]);
    const other = await runJson(['key', 'create', '--db', db]);

    const listed = await runCli(['key', 'list', '--json', '--db', db]);
    expect(listed.stderr).toBe(`decide: ledger ${path.resolve(db)}\n`);
    const keys = JSON.parse(listed.stdout);
    expect(keys.map((k: { keyHint: string }) => k.keyHint)).toEqual([ci.keyHint, laptop.keyHint, other.keyHint]);
    expect(keys[0]).toEqual({
      id: expect.stringMatching(/^key_/),
      keyHint: ci.keyHint,
      name: 'ci runner (payments)',
      passId: ci.passId,
      createdAt: expect.stringMatching(ISO),
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(keys[2].name).toBeNull();
    expect(JSON.stringify(keys)).not.toContain(ci.key);

    const ofPass = await runJson(['key', 'list', '--pass', ci.passId, '--db', db]);
    expect(ofPass.map((k: { name: string }) => k.name)).toEqual(['ci runner (payments)', 'Ana’s laptop']);

    const table = await runCli(['key', 'list', '--db', db]);
    expect(table.stdout.split('\n')[0].split(/\s{2,}/)).toEqual(['KEY', 'HINT', 'NAME', 'PASS', 'CREATED', 'LAST USED', 'REVOKED']);
    expect(table.stdout).toContain('Ana’s laptop');

    const passes = await runJson(['pass', 'list', '--db', db]);
    expect(passes).toEqual([
      { passId: ci.passId, passCredits: 0, fundedEver: false, createdAt: expect.stringMatching(ISO), keys: 2, activeKeys: 2 },
      { passId: other.passId, passCredits: 0, fundedEver: false, createdAt: expect.stringMatching(ISO), keys: 1, activeKeys: 1 },
    ]);

    for (const name of ['', ' padded', 'x'.repeat(101), 'tab\there']) {
      const refused = await runCli(['key', 'create', '--name', name, '--db', db]);
      expect(refused.code, name).toBe(64);
      expect(refused.stderr).toContain('--name must be 1 to 100 characters');
    }
    const none = await runCli(['key', 'list', '--pass', 'pass_unknown', '--db', db]);
    expect(none.code).toBe(66);
    expect(none.stderr).toContain(`no pass pass_unknown in the ledger ${path.resolve(db)}`);
  });

  it('a leaked key revoked by its hint while serving: refused at its next request; last use recorded; revoking again says so', async () => {
    const { db } = serve.tmp;
    const leaked = await runJson(['key', 'create', '--create', '--name', 'leaked', '--db', db]);
    const idle = await runJson(['key', 'create', '--db', db]);
    const server = await startServe(['--db', db], openaiEnv(serve.fake.url, ENGINE_SECRET));
    const before = Date.now();
    expect((await call(server.url, 'POST', '/v1/decisions', { key: leaked.key, json: CHOICE })).status).toBe(200);

    // As the operator types the hint in a shell: three dots for the ellipsis.
    const revoked = await runCli(['key', 'revoke', leaked.keyHint.replace('…', '...'), '--db', db]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^key dcd_api_…${leaked.key.slice(-4)} \\(key_\\w+\\) revoked at \\d{4}-`));
    const refused = await call(server.url, 'POST', '/v1/decisions', { key: leaked.key, json: CHOICE });
    expect(refused.status).toBe(401);
    expect((await call(server.url, 'GET', '/v1/usage', { key: leaked.key })).status).toBe(401);

    const again = await runJson(['key', 'revoke', leaked.key.slice(-4), '--db', db]);
    expect(again).toMatchObject({ keyHint: leaked.keyHint, alreadyRevoked: true, revokedAt: expect.stringMatching(ISO) });

    // Last use is written off the request path: at the latest when the server stops.
    await server.stop();
    const keys = await runJson(['key', 'list', '--db', db]);
    const used = keys.find((k: { keyHint: string }) => k.keyHint === leaked.keyHint);
    expect(Date.parse(used.lastUsedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(used.lastUsedAt)).toBeLessThanOrEqual(Date.parse(used.revokedAt));
    expect(keys.find((k: { keyHint: string }) => k.keyHint === idle.keyHint).lastUsedAt).toBeNull();
  });

  it('revoke: an unknown key is 66, a reference that names no key 64, a hint two keys share 64 listing both', async () => {
    const { db } = serve.tmp;
    const first = await runJson(['key', 'create', '--create', '--db', db]);
    const second = await runJson(['key', 'create', '--db', db]);
    const unknown = await runCli(['key', 'revoke', 'key_0000000000000000000000', '--db', db]);
    expect(unknown.code).toBe(66);
    expect(unknown.stderr).toBe(`decide: no key key_0000000000000000000000 in the ledger ${path.resolve(db)}\n`);
    const nonsense = await runCli(['key', 'revoke', 'not a key', '--db', db]);
    expect(nonsense.code).toBe(64);
    expect(nonsense.stderr).toContain('"not a key" names no key');

    const file = new Database(db);
    file.prepare('UPDATE keys SET hint = ?').run(first.keyHint);
    file.close();
    const shared = await runCli(['key', 'revoke', first.keyHint, '--db', db]);
    expect(shared.code).toBe(64);
    const ids = (await runJson(['key', 'list', '--db', db])).map((k: { id: string }) => k.id);
    expect(shared.stderr).toContain(`the hint ${first.keyHint} is shared by 2 keys (${ids.join(', ')}); revoke by id`);
    expect((await runJson(['key', 'revoke', ids[1], '--db', db])).alreadyRevoked).toBe(false);
    expect((await runJson(['key', 'list', '--db', db])).map((k: { revokedAt: string | null }) => k.revokedAt !== null)).toEqual([
      false,
      true,
    ]);
    expect(second.key).not.toBe(first.key);
  });
});
