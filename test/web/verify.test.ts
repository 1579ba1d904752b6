import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { providerVerifier } from '../../src/web/verify/verifier.js';
import { formOf, PASSING_TOKEN, startSiteverifyFake, type SiteverifyFake } from '../fakes/siteverify-fake.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';
import { browserOf, passCount } from './helpers.js';

const SECRET = '0x-verify-secret-of-the-operator-4242';
const SITE_KEY = '1x00000000000000000000AA';

/**
 * Turnstile and hCaptcha, server side: the service's siteverify call against a
 * loopback fake of the provider, with its successes and failures. A failed, timed-out
 * or unreadable verification creates no pass and sets no cookie.
 */
describe.each(['turnstile', 'hcaptcha'] as const)('verification by %s', (provider) => {
  let fake: SiteverifyFake;
  let svc: Running;
  /** The same provider behind a verification timeout short enough to see it fire: only for a provider that hangs. */
  let impatient: Running;
  beforeAll(async () => {
    fake = await startSiteverifyFake();
    const verifier = (timeoutMs: number) =>
      providerVerifier({ provider, siteKey: SITE_KEY, secret: SECRET, verifyUrl: fake.url, timeoutMs });
    svc = await startWithOpenAI({ web: { verifier: verifier(scaled(5_000)) } });
    impatient = await startWithOpenAI({ web: { verifier: verifier(400) } });
  });
  beforeEach(() => fake.reset());
  afterAll(async () => {
    await svc.close();
    await impatient.close();
    await fake.close();
  });

  /** Asks `to` for a pass with `token`; checks that a refusal left no pass and no cookie behind. */
  async function attempt(token: string | undefined, to: Running = svc) {
    const browser = browserOf(to);
    const before = passCount(to);
    const res = await browser.verify(token === undefined ? {} : { verificationToken: token });
    if (res.status >= 300) {
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(passCount(to)).toBe(before);
    }
    return { res, browser };
  }

  it('a passing token: the provider is asked once, with the secret, the token and the client IP', async () => {
    const { res, browser } = await attempt(PASSING_TOKEN);
    expect(res.status).toBe(201);
    expect(res.headers['set-cookie']).toMatch(/^decide_pass=/);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = formOf(fake.requests[0].body);
    expect(form).toEqual({
      secret: SECRET,
      response: PASSING_TOKEN,
      remoteip: '127.0.0.1',
      ...(provider === 'hcaptcha' ? { sitekey: SITE_KEY } : {}),
    });
    // Verified once: the cookie is the browser's identity from now on.
    expect((await browser.verify({ verificationToken: 'stale-token' })).status).toBe(200);
    expect((await browser.call('POST', '/v1/keys')).status).toBe(201);
    expect(fake.requests).toHaveLength(1);
    expect(svc.logs.join('\n')).not.toContain(SECRET);
  });

  it('a failing token: 403 verification_failed naming the provider’s error code', async () => {
    const { res } = await attempt('a-bad-token');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('verification_failed');
    expect(res.body.error).toContain('invalid-input-response');
  });

  it('no token: 400 naming verificationToken, and the provider is not asked', async () => {
    const { res } = await attempt(undefined);
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ field: 'verificationToken', message: expect.stringContaining('required') }]);
    expect(fake.requests).toHaveLength(0);
  });

  it.each([
    ['a timeout', { hang: true }, /did not answer within 400 ms/],
    ['a 5xx', { status: 502 }, /answered HTTP 502/],
    ['a body that is not JSON', { garbage: true }, /not JSON/],
    ['JSON without success', { verdict: { ok: true } }, /without a success field/],
    ['success of the wrong type', { verdict: { success: 'true' } }, /without a success field/],
    ['the provider’s own internal error', { verdict: { success: false, 'error-codes': ['internal-error'] } }, /internal error/],
    ['a cut-off answer', { truncated: true }, /cannot be reached|not JSON/],
  ])('%s: 503 verification_unavailable with Retry-After, no pass', async (_what, behaviour, message) => {
    fake.respond(() => behaviour);
    try {
      const { res } = await attempt(PASSING_TOKEN, 'hang' in behaviour ? impatient : svc);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('verification_unavailable');
      expect(res.body.error).toMatch(message);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      fake.respond();
    }
  });

  it('an unreachable provider: 503, no pass', async () => {
    const verifier = providerVerifier({ provider, siteKey: SITE_KEY, secret: SECRET, verifyUrl: 'http://127.0.0.1:9/siteverify' });
    await expect(verifier.verify('token', '127.0.0.1')).rejects.toMatchObject({ code: 'verification_unavailable' });
  });

  it('the home page carries the widget, and the CSP allows its origin and no other', async () => {
    const res = await svc.call('GET', '/');
    const widget = provider === 'turnstile' ? 'https://challenges.cloudflare.com' : 'https://hcaptcha.com https://*.hcaptcha.com';
    const className = provider === 'turnstile' ? 'cf-turnstile' : 'h-captcha';
    expect(res.text).toContain(`class="${className} widget" data-sitekey="${SITE_KEY}" data-callback="decideVerified"`);
    expect(res.text).not.toContain('id="verify-off"');
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain(`script-src 'self' ${widget};`);
    expect(csp).toContain(`frame-src ${widget};`);
    expect(csp).not.toContain('unsafe-inline');
    // A browser holding a pass sees no widget, and loads no third-party script.
    const { browser } = await attempt(PASSING_TOKEN);
    const page = await svc.call('GET', '/', { headers: { cookie: browser.cookie! } });
    expect(page.text).not.toContain(className);
    expect(page.text).not.toMatch(/<script src="https:/);
  });
});
