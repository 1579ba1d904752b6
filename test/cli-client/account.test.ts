import { describe, expect, it } from 'vitest';
import { KeyRevoked, Usage } from '../../src/contract/index.js';
import { NOUL } from '../support/requests.js';
import { decide, decideInPty, ESCAPE, plain, useClientFixture } from './helpers.js';

/** `decide usage` and `decide revoke` against the real service. */
describe('decide usage / revoke', () => {
  const client = useClientFixture();

  const env = (key: string) => ({ DECIDE_URL: client.svc.url, DECIDE_API_KEY: key });
  const usageOf = async (key: string) => await client.svc.call('GET', '/v1/usage', { key });

  it('usage --json prints the API body; the human form shows the allowance and the credits', async () => {
    const { key } = await client.svc.newKey(12);
    await client.svc.call('POST', '/v1/decisions', { key, json: NOUL });
    const json = await decide(['usage', '--json'], { env: env(key) });
    expect(json.code).toBe(0);
    expect(json.stderr).toBe('');
    const body = JSON.parse(json.stdout);
    expect(Usage.safeParse(body).error).toBeUndefined();
    expect(body).toMatchObject({ freeLimit: 20, freeUsed: 1, freeRemaining: 19, passCredits: 12 });

    const human = await decide(['usage'], { env: env(key) });
    expect(human.code).toBe(0);
    expect(human.stdout).not.toMatch(ESCAPE);
    expect(human.stdout).toMatch(/^Free decisions today \(\d{4}-\d\d-\d\d\): 19 of 20 left {2}█+░+\n/);
    expect(human.stdout).toContain('Pass credits: 12');
    expect(human.stdout).toMatch(/resets at 00:00 UTC, in \d+ (h \d+ )?min\.\n$/);
    expect(human.stdout).not.toMatch(/\d{4}-\d\d-\d\dT\d/);
  });

  it("usage where the machine's clock is not UTC: the reset said in UTC and in local time", async () => {
    const { key } = await client.svc.newKey();
    const tokyo = await decide(['usage'], { env: { ...env(key), TZ: 'Asia/Tokyo' } });
    expect(tokyo.code).toBe(0);
    expect(tokyo.stdout.replace(/\s+/g, ' ')).toMatch(/resets at 00:00 UTC \(09:00 GMT\+9 here\), in \d+ (h \d+ )?min\. $/);
  });

  it('usage with the key from --key-file, the file trimmed', async () => {
    const { key } = await client.svc.newKey();
    const file = client.tmp.write('usage.key', `  ${key}\n\n`);
    const run = await decide(['usage', '--json', '--key-file', file], { env: { DECIDE_URL: client.svc.url } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).freeRemaining).toBe(20);
  });

  it('usage --url <server>/v1 and <server>/v1/ answer as <server> does; a path prefix stays a prefix; ftp:// is refused naming --url', async () => {
    const { key } = await client.svc.newKey(7);
    const answer = async (url: string) => {
      const run = await decide(['usage', '--json', '--url', url], { env: { DECIDE_API_KEY: key } });
      return { ...run, body: run.code === 0 ? JSON.parse(run.stdout) : undefined };
    };
    const root = await answer(client.svc.url);
    expect(root.code).toBe(0);
    expect(root.body).toMatchObject({ freeLimit: 20, passCredits: 7 });
    for (const url of [`${client.svc.url}/v1`, `${client.svc.url}/v1/`]) {
      const run = await answer(url);
      expect(run, url).toMatchObject({ code: 0, stderr: '', body: root.body });
    }
    // DECIDE_URL is read the same way.
    const fromEnv = await decide(['usage', '--json'], { env: { DECIDE_URL: `${client.svc.url}/v1/`, DECIDE_API_KEY: key } });
    expect(JSON.parse(fromEnv.stdout)).toEqual(root.body);

    // Another path is a prefix, as before: this server has nothing under /api, and says which path it was asked.
    const prefixed = await answer(`${client.svc.url}/api`);
    expect(prefixed.code).not.toBe(0);
    expect(prefixed.stderr).toContain('no route GET /api/v1/usage');

    const ftp = await answer('ftp://me:hunter2@example.org/v1');
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toBe(
      'decide: --url must be an http(s) URL; got "ftp://me:***@example.org/v1" (expected e.g. http://127.0.0.1:8787)\n',
    );
  });

  it('revoke without --yes off a terminal refuses (2), and the key still works', async () => {
    const { key } = await client.svc.newKey();
    const run = await decide(['revoke'], { env: env(key) });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('decide: refusing to revoke without --yes: standard input is not a terminal to confirm on\n');
    expect((await usageOf(key)).status).toBe(200);
  });

  it('revoke --yes --json prints the API body; afterwards the key is refused (exit 3)', async () => {
    const { key, keyHint } = await client.svc.newKey();
    const run = await decide(['revoke', '--yes', '--json'], { env: env(key) });
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout);
    expect(KeyRevoked.safeParse(body).error).toBeUndefined();
    expect(body.keyHint).toBe(keyHint);
    expect((await usageOf(key)).status).toBe(401);

    const after = await decide(['usage'], { env: env(key) });
    expect(after.code).toBe(3);
    expect(after.stderr).toContain('(401 unauthorized)');
    expect(after.stdout + after.stderr).not.toContain(key);

    // Revoking twice: the second is refused like any call with a revoked key.
    expect((await decide(['revoke', '--yes'], { env: env(key) })).code).toBe(3);
  });

  it('revoke on a terminal asks first: "y" revokes, anything else keeps the key (exit 2)', async () => {
    const kept = await client.svc.newKey();
    const no = await decideInPty(['revoke'], { env: env(kept.key), answer: { waitFor: '[y/N]', text: 'n\r' } });
    expect(no.code).toBe(2);
    expect(plain(no.stdout)).toContain(`Revoke the key ${kept.keyHint} at ${client.svc.url}? Every later call with it is refused. [y/N]`);
    expect(plain(no.stdout)).toContain(`not revoked: ${kept.keyHint} stays active`);
    expect((await usageOf(kept.key)).status).toBe(200);

    const gone = await client.svc.newKey();
    const yes = await decideInPty(['revoke'], { env: env(gone.key), answer: { waitFor: '[y/N]', text: 'y\r' } });
    expect(yes.code).toBe(0);
    expect(plain(yes.stdout)).toMatch(
      new RegExp(
        `Revoked ${gone.keyHint.replace('…', '.')} at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC; calls with this key are now refused \\(401\\)`,
      ),
    );
    expect((await usageOf(gone.key)).status).toBe(401);
    expect(yes.stdout).not.toContain(gone.key);
  });
});
