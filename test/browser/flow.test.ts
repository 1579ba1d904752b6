import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DecisionResponse, isWellFormedKey } from '../../src/contract/index.js';
import { CHOICE } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';
import { launchChromium, watch, type Chromium } from './chromium.js';
import { leanOnTransactions, screenshot, textOnce } from './pages.js';

/**
 * The whole browser flow in real headless Chromium, against the whole service (a real
 * server, a SQLite file, the loopback OpenAI fake), with verification `none` (the
 * providers' widgets cannot load offline; their server side is tested in test/web).
 * It takes docs/browser.md's desktop screenshots (pages.ts, `DECIDE_SCREENSHOTS=1`).
 */

/** A plain HTTP caller, as `curl` would be: no browser, no cookie. */
async function curl(url: string, key: string, body?: unknown) {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('the pages, in headless Chromium', () => {
  let svc: Running;
  let browser: Chromium;
  beforeAll(async () => {
    svc = await startWithOpenAI();
    browser = await launchChromium();
  }, scaled(90_000));
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  it('a browser without a pass is sent to the home page', async () => {
    const page = await browser.context.newPage();
    const problems = await watch(page, svc.url);
    await page.goto(`${svc.url}/pass`);
    await expect(page.textContent('#no-pass h1')).resolves.toBe('No pass in this browser');
    await page.click('#no-pass a[href="/"]');
    await page.waitForURL(`${svc.url}/`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('verify → create a key → use it over HTTP → decide in the form → revoke it on the page → 401', {
    timeout: scaled(120_000),
  }, async () => {
    const { context } = browser;
    const page = await context.newPage();
    const problems = await watch(page, svc.url);

    // The home page: what the service is, how to call it (the real base URL), verification labelled off.
    await page.goto(`${svc.url}/`);
    await expect(page.textContent('#verify-off')).resolves.toContain('DECIDE_VERIFY=none');
    await expect(page.textContent('#curl-snippet')).resolves.toContain(`${svc.url}/v1/decisions`);
    await expect(page.textContent('#mcp-snippet')).resolves.toContain(`${svc.url}/mcp`);

    // Verify (once, `none`) and create a key: shown once, with a copy button and a warning.
    await page.click('#create-key');
    await page.waitForSelector('#new-key:not([hidden])');
    const key = (await page.textContent('#new-key-value'))!;
    expect(isWellFormedKey(key)).toBe(true);
    await expect(page.textContent('#new-key .warning')).resolves.toContain('will not be shown again');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
    await page.click('#copy-key');
    await textOnce(page, '#copy-state', /Copied to the clipboard/);
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(key);
    const cookies = await context.cookies(svc.url);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: 'decide_pass', httpOnly: true, sameSite: 'Strict', secure: false, path: '/' });
    expect(cookies[0].value).not.toContain(key);
    expect(await page.evaluate(() => (globalThis as any).document.cookie)).toBe(''); // HttpOnly: no script can read it
    await screenshot(page, 'home');

    // The key works from anywhere, like curl.
    const answer = await curl(`${svc.url}/v1/decisions`, key, CHOICE);
    expect(answer.status).toBe(200);
    expect(DecisionResponse.safeParse(answer.body).success).toBe(true);

    // From here the engine leans on one fact: without the need for transactions, MongoDB wins.
    leanOnTransactions(svc);

    // The pass page: credits, funding, the key by hint with today's free use.
    await page.goto(`${svc.url}/pass`);
    await expect(page.textContent('#pass-credits')).resolves.toBe('0');
    await expect(page.textContent('#pass-funded')).resolves.toBe('not yet');
    const row = page.locator('#keys tbody tr');
    await expect(row.count()).resolves.toBe(1);
    await expect(row.locator('code').textContent()).resolves.toBe(`dcd_api_…${key.slice(-4)}`);
    await expect(row.locator('.free-used span').textContent()).resolves.toBe('1');

    // Validation errors come back from the contract and show beside their fields.
    await page.selectOption('select[name="mode"]', 'choice');
    await page.fill('input[name="question"]', 'Which?');
    await page.fill('textarea[name="context"]', CHOICE.context);
    await page.fill('input[name="options.0"]', 'PostgreSQL');
    await page.fill('input[name="options.2"]', 'postgresql'); // the second box left empty
    await page.click('#decide-form button[type="submit"]');
    await textOnce(page, '[data-error-for="question"]', /8 to 300/);
    await textOnce(page, '[data-error-for="options.2"]', /must be distinct/);
    await expect(page.getAttribute('input[name="question"]', 'aria-invalid')).resolves.toBe('true');

    // A standard decision: bars, the signal, context sufficiency; the free use goes up.
    await page.fill('input[name="question"]', CHOICE.question);
    await page.fill('input[name="options.2"]', 'MongoDB');
    await page.click('#decide-form button[type="submit"]');
    await page.waitForSelector('#answer:not([hidden])');
    await expect(page.locator('[data-error-for="question"]').isHidden()).resolves.toBe(true);
    await expect(page.locator('#answer .bar-row').count()).resolves.toBe(2);
    await expect(page.locator('#answer .bar-label').allTextContents()).resolves.toEqual(['PostgreSQL', 'MongoDB']);
    expect(
      await page
        .locator('#answer .fill')
        .first()
        .evaluate((el) => (el as any).style.width),
    ).toMatch(/%$/);
    await expect(page.locator('#answer .badge').textContent()).resolves.toBe('directional');
    await expect(page.locator('#answer .bar-row.top .bar-label').textContent()).resolves.toBe('PostgreSQL');
    await expect(page.locator('#answer .sufficiency').textContent()).resolves.toBe('Context: sufficient (88%)');
    await textOnce(page, '#keys tbody tr .free-used span', /^2$/);
    await expect(page.locator('#answer p.muted').textContent()).resolves.toMatch(/^Free: 18 decisions left today for this key\. /);

    // A stress decision, once the operator funded the pass: the checks and the pivot fact.
    const passId = (await page.textContent('#pass-id'))!;
    await svc.store.passes.fund(passId, 12, new Date(), 'browser test');
    await page.check('input[name="depth"][value="stress"]');
    await page.click('#decide-form button[type="submit"]');
    await page.waitForSelector('#answer .stress');
    await expect(page.locator('#answer .checks tr').count()).resolves.toBeGreaterThan(2);
    await expect(page.locator('#answer .pivot').textContent()).resolves.toMatch(
      /^Decisive fact \d+: .*transactions across several tables.* Without it the answer shifts by [\d.]+% and flips: the decision rests on this fact\.$/,
    );
    await textOnce(page, '#pass-credits', /^7$/);
    await expect(page.locator('#answer p.muted').textContent()).resolves.toMatch(/^Paid by the pass: 7 credits left\. /);
    await expect(page.textContent('#pass-funded')).resolves.toBe('yes');
    const metrics = (await (await fetch(`${svc.url}/v1/metrics`)).json()) as any;
    expect(metrics.web.samples).toBe(2);
    expect(metrics.api.samples).toBe(1);
    await screenshot(page, 'pass');

    // Revoke on the page (two clicks), and the key is refused from then on.
    await page.click('button.revoke');
    await page.getByRole('button', { name: /^Confirm: revoke dcd_api_…/ }).waitFor(); // armed
    await page.click('button.revoke');
    await textOnce(page, '#keys tbody tr .status', /^revoked /);
    await expect(page.locator('button.revoke').count()).resolves.toBe(0);
    await expect(page.locator('select[name="keyId"] option').count()).resolves.toBe(0);
    const refused = await curl(`${svc.url}/v1/usage`, key);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthorized');

    // Nothing the CSP refused, no script error, nothing fetched from elsewhere.
    expect(problems).toEqual([]);
    expect(svc.logs.join('\n')).not.toContain(key);
    await page.close();
  });
});
