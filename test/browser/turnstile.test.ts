import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerVerifier } from '../../src/web/verify/verifier.js';
import { formOf, PASSING_TOKEN, startSiteverifyFake, type SiteverifyFake } from '../fakes/siteverify-fake.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { launchChromium, watch, type Chromium } from './chromium.js';
import { scaled } from '../support/time.js';

const WIDGET_ORIGIN = 'https://challenges.cloudflare.com';

/**
 * A stand-in for Turnstile's api.js, served to Chromium in place of the real one (the
 * machine is offline): it puts a button in each `.cf-turnstile` element that hands the
 * page's callback the token its `data-token` names, as the widget would once solved,
 * and counts `turnstile.reset()` calls.
 */
const FAKE_WIDGET = `
  window.turnstile = { resets: 0, reset() { this.resets++; } };
  for (const el of document.querySelectorAll('.cf-turnstile')) {
    for (const token of ['${PASSING_TOKEN}', 'a-bad-token']) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'fake-widget';
      button.dataset.token = token;
      button.textContent = 'Solve with ' + token;
      button.addEventListener('click', () => window[el.dataset.callback](token));
      el.append(button);
    }
  }`;

/**
 * The home page with Turnstile in real Chromium: the widget's script (stubbed) under
 * the page's CSP, its callback, and the server's siteverify call (a loopback fake).
 */
describe('the home page with Turnstile, in headless Chromium', () => {
  let fake: SiteverifyFake;
  let svc: Running;
  let browser: Chromium;
  beforeAll(async () => {
    fake = await startSiteverifyFake();
    const verifier = providerVerifier({ provider: 'turnstile', siteKey: '1x00000000000000000000AA', secret: 'sec', verifyUrl: fake.url });
    svc = await startWithOpenAI({ web: { verifier } });
    browser = await launchChromium();
    await browser.context.route(`${WIDGET_ORIGIN}/turnstile/v0/api.js`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/javascript', body: FAKE_WIDGET }),
    );
  }, scaled(90_000));
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
    await fake?.close();
  });

  it('no key before the widget is solved; a refused token resets it; a passing one gets the pass and the key', async () => {
    const page = await browser.context.newPage();
    const problems = await watch(page, svc.url);
    await page.goto(`${svc.url}/`);
    await page.waitForSelector('.fake-widget');
    expect(await page.locator('#verify-off').count()).toBe(0);
    expect(await page.isDisabled('#create-key')).toBe(true);

    await page.click('.fake-widget[data-token="a-bad-token"]');
    expect(await page.isDisabled('#create-key')).toBe(false);
    await page.click('#create-key');
    await page.waitForSelector('#create-error:not([hidden])');
    expect(await page.textContent('#create-error')).toContain('invalid-input-response');
    expect(await page.evaluate(() => (globalThis as any).turnstile.resets)).toBe(1);
    expect(await page.isDisabled('#create-key')).toBe(true); // a new token is needed
    expect(await browser.context.cookies(svc.url)).toEqual([]);

    await page.click(`.fake-widget[data-token="${PASSING_TOKEN}"]`);
    await page.click('#create-key');
    await page.waitForSelector('#new-key:not([hidden])');
    expect(await page.textContent('#new-key-value')).toMatch(/^dcd_api_/);
    expect(fake.requests.map((r) => formOf(r.body).response)).toEqual(['a-bad-token', PASSING_TOKEN]);
    expect(await browser.context.cookies(svc.url)).toHaveLength(1);

    // Verified once: the next visit shows no widget and loads no third-party script.
    await page.goto(`${svc.url}/`);
    expect(await page.locator('.cf-turnstile').count()).toBe(0);
    expect(await page.locator(`script[src^="${WIDGET_ORIGIN}"]`).count()).toBe(0);
    // The widget's script is the one request to another origin; the refused token's 403 is expected.
    expect(problems).toEqual([
      `request to another origin: ${WIDGET_ORIGIN}/turnstile/v0/api.js`,
      'console: Failed to load resource: the server responded with a status of 403 (Forbidden)',
    ]);
    await page.close();
  });
});
