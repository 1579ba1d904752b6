import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/ledger/sqlite/store.js';
import { webSettings } from '../../src/config/web.js';
import { COOKIE_SECRET_SETTING, resolveCookieSecret, webConfig } from '../../src/web/config.js';
import { call } from '../support/api.js';
import { assertBuilt, killChildren, openaiEnv, runCli, startServe, tempDb } from '../support/cli.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { cookieOf } from './helpers.js';

const LIMITS = { freePerKey: 20, freePerIp: 0, freePerSite: 0 };
/** The browser side as `decide serve` builds it: the variables read (config/web.ts), then the verifier made. */
const webConfigFromEnv = (env: Record<string, string>) => webConfig(webSettings(env), {});

describe('the browser side’s configuration, from the environment', () => {
  it('defaults: verification none, no cookie secret (the database keeps one), no public URL', () => {
    const config = webConfigFromEnv({});
    expect(config.verifier.provider).toBe('none');
    expect(config.verifier.widget).toBeNull();
    expect(config.cookieSecret).toBeNull();
    expect(config.publicUrl).toBeNull();
  });

  it('turnstile and hcaptcha need their site key and secret', () => {
    expect(() => webConfigFromEnv({ DECIDE_VERIFY: 'recaptcha' })).toThrow(/DECIDE_VERIFY must be one of none, turnstile, hcaptcha/);
    expect(() => webConfigFromEnv({ DECIDE_VERIFY: 'turnstile', DECIDE_VERIFY_SECRET: 's' })).toThrow(/DECIDE_VERIFY_SITE_KEY/);
    expect(() => webConfigFromEnv({ DECIDE_VERIFY: 'hcaptcha', DECIDE_VERIFY_SITE_KEY: 'k' })).toThrow(/DECIDE_VERIFY_SECRET/);
    const config = webConfigFromEnv({ DECIDE_VERIFY: 'hcaptcha', DECIDE_VERIFY_SITE_KEY: 'site', DECIDE_VERIFY_SECRET: 'secret' });
    expect(config.verifier.provider).toBe('hcaptcha');
    expect(config.verifier.widget).toMatchObject({ siteKey: 'site', scriptUrl: 'https://js.hcaptcha.com/1/api.js' });
    expect(() =>
      webConfigFromEnv({
        DECIDE_VERIFY: 'turnstile',
        DECIDE_VERIFY_SITE_KEY: 'k',
        DECIDE_VERIFY_SECRET: 's',
        DECIDE_VERIFY_URL: 'ftp://x',
      }),
    ).toThrow(/DECIDE_VERIFY_URL must be an http\(s\) URL/);
  });

  it('a cookie secret shorter than 32 characters, or a public URL with a path, is refused', () => {
    expect(() => webConfigFromEnv({ DECIDE_COOKIE_SECRET: 'short' })).toThrow(/at least 32 characters/);
    expect(webConfigFromEnv({ DECIDE_COOKIE_SECRET: 'x'.repeat(32) }).cookieSecret).toBe('x'.repeat(32));
    expect(() => webConfigFromEnv({ DECIDE_PUBLIC_URL: 'https://example.com/decide' })).toThrow(/origin only/);
    expect(webConfigFromEnv({ DECIDE_PUBLIC_URL: 'https://Example.com:443/' }).publicUrl).toBe('https://example.com');
  });

  it('without DECIDE_COOKIE_SECRET, one secret is generated once and kept in the database', async () => {
    const tmp = tempDb();
    try {
      let store = openSqliteStore(tmp.db, LIMITS);
      const first = await resolveCookieSecret(webConfigFromEnv({}), store, new Date());
      expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await resolveCookieSecret(webConfigFromEnv({}), store, new Date())).toBe(first);
      await store.close();
      store = openSqliteStore(tmp.db, LIMITS);
      expect(await resolveCookieSecret(webConfigFromEnv({}), store, new Date())).toBe(first);
      const given = 'g'.repeat(40);
      expect(await resolveCookieSecret(webConfigFromEnv({ DECIDE_COOKIE_SECRET: given }), store, new Date())).toBe(given);
      expect(await store.web.setting(COOKIE_SECRET_SETTING, 'other', new Date())).toBe(first); // the env never overwrites it
      await store.close();
    } finally {
      tmp.remove();
    }
  });
});

describe('decide serve with the pages', () => {
  let fake: OpenAIFake;
  const cleanups: Array<() => void | Promise<void>> = [];
  beforeAll(async () => {
    assertBuilt();
    fake = await startOpenAIFake();
    cleanups.push(() => fake.close());
  });
  afterEach(async () => {
    await killChildren();
  });
  afterAll(async () => {
    for (const clean of cleanups.splice(0)) await clean();
  });
  const env = () => openaiEnv(fake.url, 'sk-test');

  it('refuses to start with a provider but no secret: exit 78 naming the variable', async () => {
    const tmp = tempDb();
    cleanups.push(tmp.remove);
    const result = await runCli(['serve', '--port', '0', '--db', tmp.db], {
      ...env(),
      DECIDE_VERIFY: 'turnstile',
      DECIDE_VERIFY_SITE_KEY: 'k',
    });
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('DECIDE_VERIFY_SECRET');
    expect(result.stdout).toBe('');
  });

  it('serves / with its assets from the package, and a pass cookie outlives a restart', async () => {
    const tmp = tempDb();
    cleanups.push(tmp.remove);
    let server = await startServe(['--db', tmp.db], env());
    await server.waitForStderr(/browser verification none/);
    const home = await call(server.url, 'GET', '/');
    expect(home.status).toBe(200);
    const script = /src="(\/assets\/app\.[0-9a-f]{12}\.js)"/.exec(home.text)![1];
    expect((await call(server.url, 'GET', script)).status).toBe(200);
    const pass = await call(server.url, 'POST', '/v1/pass', { headers: { origin: server.url } });
    const cookie = cookieOf(pass.headers['set-cookie']);
    await server.stop();

    server = await startServe(['--db', tmp.db], env());
    const again = await call(server.url, 'GET', '/v1/pass', { headers: { cookie } });
    expect(again.status).toBe(200);
    expect(again.body.passId).toBe(pass.body.passId);
    await server.stop();

    // Another secret from the environment: the old cookie no longer counts.
    server = await startServe(['--db', tmp.db], { ...env(), DECIDE_COOKIE_SECRET: 'z'.repeat(48) });
    expect((await call(server.url, 'GET', '/v1/pass', { headers: { cookie } })).status).toBe(401);
    await server.stop();
  });
});
