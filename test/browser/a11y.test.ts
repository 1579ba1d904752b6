import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHOICE } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';
import { seriousViolations, type Violation } from './axe.js';
import { launchChromium, type Chromium } from './chromium.js';
import { createKey, decideOnPage, fillDecision, focusOnce, leanOnTransactions, newPage, textOnce } from './pages.js';

/**
 * The pages as a keyboard and screen-reader user meets them, in headless Chromium:
 * axe-core finds no serious or critical violation on either page, in light and dark,
 * with errors and with an answer; the focus lands on what changed.
 *
 * Each test is a browser of its own (no cookie, its own IP through a trusted
 * proxy's X-Forwarded-For), so each may create its keys.
 */
describe('the pages for keyboards and screen readers, in headless Chromium', () => {
  let svc: Running;
  let browser: Chromium;
  let nextIp = 10;
  beforeAll(async () => {
    svc = await startWithOpenAI({ trustProxy: true });
    browser = await launchChromium();
    leanOnTransactions(svc);
  }, scaled(90_000));
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  const freshPage = () => newPage(browser, svc, `198.51.100.${nextIp++}`);

  /** axe in light and in dark, of the page as it is now; `state` names it in a failure. */
  async function check(page: Page, state: string, found: Record<string, Violation[]>) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      found[`${state}, ${colorScheme}`] = await seriousViolations(page);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  it('axe: no serious or critical violation on / and /pass, light and dark, with errors and with answers', {
    timeout: scaled(120_000),
  }, async () => {
    const { page, problems } = await freshPage();
    const found: Record<string, Violation[]> = {};
    await page.goto(`${svc.url}/`);
    await check(page, 'home', found);
    await createKey(page, svc);
    await check(page, 'home with a new key', found);

    await page.goto(`${svc.url}/pass`);
    await check(page, 'pass', found);
    await fillDecision(page, { ...CHOICE, question: 'Which?', options: ['PostgreSQL', '', 'postgresql'] });
    await page.click('#decide-form button[type="submit"]');
    await textOnce(page, '#decide-error', /fields need a change/);
    await check(page, 'pass with field errors', found);

    await fillDecision(page, { ...CHOICE, depth: 'stress' });
    await page.click('#decide-form button[type="submit"]');
    await textOnce(page, '#decide-error', /pass_required/);
    await check(page, 'pass with a refused stress test', found);

    await svc.store.passes.fund((await page.textContent('#pass-id'))!, 10, new Date(), 'a11y test');
    await decideOnPage(page);
    await page.waitForSelector('#answer .stress');
    await check(page, 'pass with a stress answer', found);
    await page.click('button.revoke');
    await check(page, 'pass with Revoke armed', found);

    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((state) => [state, []])));
    expect(problems).toEqual(['console: Failed to load resource: the server responded with a status of 402 (Payment Required)']);
    await page.close();
  });

  it('a skip link is the first stop of the keyboard and moves the focus to the content', async () => {
    const { page } = await freshPage();
    await page.goto(`${svc.url}/pass`);
    await page.keyboard.press('Tab');
    await expect(focusOnce(page, 'a.skip-link')).resolves.toBe('a.skip-link');
    expect(await page.isVisible('a.skip-link')).toBe(true);
    await page.keyboard.press('Enter');
    await focusOnce(page, 'main#main');
    await page.keyboard.press('Tab');
    await focusOnce(page, '#no-pass a'); // the next stop is inside the content, not the header
    await page.close();
  });

  it('the decision form: errors are tied to their fields and the focus goes to the first; an answer takes the focus', async () => {
    const { page } = await freshPage();
    await createKey(page, svc);
    await page.goto(`${svc.url}/pass`);
    await fillDecision(page, { ...CHOICE, question: 'Which?', options: ['PostgreSQL', '', 'postgresql'] });
    await page.click('#decide-form button[type="submit"]');

    await focusOnce(page, 'input[name="question"]');
    await expect(page.textContent('#decide-error')).resolves.toBe('2 fields need a change: see beside them.');
    expect(await page.getAttribute('#decide-error', 'role')).toBe('alert');
    // A screen reader reads each field with its error.
    for (const name of ['question', 'options.2']) {
      const input = page.locator(`[name="${name}"]`);
      await expect(input.getAttribute('aria-invalid')).resolves.toBe('true');
      const described = (await input.getAttribute('aria-describedby'))!;
      await expect(page.locator(`[id="${described}"]`).textContent()).resolves.toMatch(name === 'question' ? /8 to 300/ : /distinct/);
    }

    await fillDecision(page, CHOICE);
    await decideOnPage(page);
    await focusOnce(page, '#answer h3');
    await expect(page.textContent('#answer h3')).resolves.toBe(CHOICE.question);
    expect(await page.isVisible('#decide-error')).toBe(false);
    await page.close();
  });

  it('a refused "Create a key" puts the focus on the reason, and leaves no pass behind', async () => {
    const { page } = await freshPage();
    await createKey(page, svc);
    await createKey(page, svc); // this IP's two keys of the day
    await browser.context.clearCookies(); // another browser behind the same IP
    await page.goto(`${svc.url}/`);
    await page.click('#create-key');
    await focusOnce(page, '#create-error');
    await expect(page.textContent('#create-error')).resolves.toMatch(/^No key was created: this network has created 2 keys today/);
    await expect(page.textContent('#pass-state')).resolves.toContain('holds no pass'); // the empty pass went with the refusal
    expect(await browser.context.cookies(svc.url)).toEqual([]);
    await page.close();
  });

  it('Revoke, once armed, disarms on Escape, on leaving it, and after 5 seconds; the revoke puts the focus on the key', async () => {
    const { page } = await freshPage();
    await page.clock.install(); // the page's timers run when the test says
    await createKey(page, svc);
    await page.goto(`${svc.url}/pass`);
    const revoke = page.locator('button.revoke');
    /** The button's name, as a screen reader reads it (the label app.css hides is not part of it). */
    const named = async () => (await revoke.ariaSnapshot()).match(/button "(.*)"/)?.[1];
    const arm = async () => {
      await revoke.click();
      await expect(named()).resolves.toMatch(/^Confirm: revoke dcd_api_…\w+$/);
    };

    await arm();
    await page.keyboard.press('Escape');
    await expect(named()).resolves.toBe('Revoke');
    await arm();
    await page.keyboard.press('Tab'); // the focus leaves it
    await expect(named()).resolves.toBe('Revoke');
    await arm();
    await page.clock.runFor(4_000);
    await expect(named()).resolves.toMatch(/^Confirm/);
    await page.clock.runFor(1_500);
    await expect(named()).resolves.toBe('Revoke');

    await arm();
    await revoke.click();
    await focusOnce(page, '#keys tbody tr td.status');
    await expect(page.textContent('#keys tbody tr td.status')).resolves.toBe('revoked today');
    await expect(page.getAttribute('#keys tbody tr td.status time', 'title')).resolves.toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(await page.isDisabled('#decide-form button[type="submit"]')).toBe(true); // no key left to pay with
    await page.close();
  });
});
