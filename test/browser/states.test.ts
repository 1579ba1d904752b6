import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHOICE, NOUL } from '../support/requests.js';
import { scripted } from '../support/scripts.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';
import { browserOf } from '../web/helpers.js';
import { launchChromium, watch, type Chromium } from './chromium.js';
import { createKey, decideOnPage, fillDecision, focusOnce, textOnce } from './pages.js';

/**
 * What the pass page shows after each outcome, in headless Chromium: a refusal clears
 * the last answer, shares add up to 100.0%, the stress test says when no single fact
 * decides, how to fund the pass is said only until it is funded; and with JavaScript
 * off, nothing sends the facts anywhere. The first tests share one page (and its
 * key), loaded once; each funds what it spends.
 */
describe('the pass page after each outcome, in headless Chromium', () => {
  let svc: Running;
  let browser: Chromium;
  let page: Page;
  let problems: string[];
  beforeAll(async () => {
    svc = await startWithOpenAI();
    browser = await launchChromium();
    page = await browser.context.newPage();
    problems = await watch(page, svc.url);
    await createKey(page, svc);
    await page.goto(`${svc.url}/pass`);
  }, scaled(90_000));
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  const bars = async () => (await page.locator('#answer .bar-row').allTextContents()).map((row) => row.replace(/\s+/g, ' ').trim());

  it('the shares of one answer add up to exactly 100.0%, by largest remainder', async () => {
    // Three equal options: the service rounds them to 0.3334, 0.3333, 0.3333; each shown alone would be 33.3%.
    svc.fake.respond(scripted({ PostgreSQL: 1, MongoDB: 1, SQLite: 1 }, { Yes: 0.9, No: 0.1 }));
    await fillDecision(page, { ...CHOICE, options: ['PostgreSQL', 'MongoDB', 'SQLite'] });
    await decideOnPage(page);
    expect(await bars()).toEqual(['PostgreSQL33.4%', 'MongoDB33.3%', 'SQLite33.3%']);

    // Yes 0.6895 / No 0.3105: rounded each on its own, 69.0% and 31.1%.
    svc.fake.respond(scripted({ Yes: 0.6895, No: 0.3105 }, { Yes: 0.9, No: 0.1 }));
    await fillDecision(page, NOUL);
    await decideOnPage(page);
    await textOnce(page, '#answer h3', /Friday/);
    expect(await bars()).toEqual(['Yes69.0%', 'No31.0%']);
    const widths = await page.locator('#answer .fill').evaluateAll((fills) => fills.map((f) => (f as any).style.width));
    expect(widths).toEqual(['69%', '31%']);
  });

  it('a stress test where leaving out any one fact changes nothing says that no single fact decides it', async () => {
    await svc.store.passes.fund((await page.textContent('#pass-id'))!, 5, new Date(), 'states test');
    svc.fake.respond(scripted({ PostgreSQL: 0.7, MongoDB: 0.3 }, { Yes: 0.9, No: 0.1 }));
    await fillDecision(page, { ...CHOICE, depth: 'stress' });
    await decideOnPage(page);
    await page.waitForSelector('#answer .stress');
    expect(await page.locator('#answer .pivot').count()).toBe(0);
    await expect(page.locator('#answer .stress > p').textContent()).resolves.toBe(
      'No single fact decides it: leaving one out never flips the answer or moves it 10% or more.',
    );
    await textOnce(page, '#pass-credits', /^0$/);
  });

  it('a refused decision clears the last answer, whose balance is out of date, and takes the focus', async () => {
    await svc.store.passes.fund((await page.textContent('#pass-id'))!, 5, new Date(), 'states test');
    await fillDecision(page, { ...CHOICE, depth: 'stress' });
    await decideOnPage(page);
    await textOnce(page, '#answer', /Paid by the pass: 0 credits left/);
    await page.click('#decide-form button[type="submit"]');
    await focusOnce(page, '#decide-error');
    await expect(page.textContent('#decide-error')).resolves.toMatch(/holds 0 credits \(pass_required\)$/);
    expect(await page.isHidden('#answer')).toBe(true);
    expect(await page.locator('#answer *').count()).toBe(0);
    await expect(page.textContent('#pass-credits')).resolves.toBe('0');
    expect(problems).toEqual(['console: Failed to load resource: the server responded with a status of 402 (Payment Required)']);
  });

  it('once the pass is funded, the page no longer says how to fund it', async () => {
    // The page as loaded before any funding: the hint was rendered.
    await svc.store.passes.fund((await page.textContent('#pass-id'))!, 1, new Date(), 'states test');
    svc.fake.respond(scripted({ PostgreSQL: 0.7, MongoDB: 0.3 }, { Yes: 0.9, No: 0.1 }));
    await fillDecision(page, CHOICE);
    await decideOnPage(page); // free: the credit stays
    await textOnce(page, '#pass-credits', /^1$/);
    await expect(page.textContent('#pass-funded')).resolves.toBe('yes');
    expect(await page.getByText('The operator of this service funds a pass').isHidden()).toBe(true);
  });
});

describe('the pages with JavaScript off, in headless Chromium', () => {
  let svc: Running;
  let browser: Chromium;
  beforeAll(async () => {
    svc = await startWithOpenAI();
    browser = await launchChromium({ javaScriptEnabled: false });
  }, scaled(90_000));
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  it('say what needs the script; their buttons are disabled and no form puts the facts in a URL', async () => {
    // A pass and a key made over the API, its cookie handed to the browser.
    const api = browserOf(svc);
    await api.newKey();
    const [name, value] = api.cookie!.split('=');
    await browser.context.addCookies([{ name, value, url: svc.url }]);
    const page = await browser.context.newPage();

    await page.goto(`${svc.url}/`);
    await expect(page.textContent('#noscript')).resolves.toContain('JavaScript is off');
    expect(await page.isDisabled('#create-key')).toBe(true);

    await page.goto(`${svc.url}/pass`);
    expect(await page.isVisible('#noscript')).toBe(true);
    expect(await page.isDisabled('button.revoke')).toBe(true);
    expect(await page.isDisabled('#decide-form button[type="submit"]')).toBe(true);
    expect(await page.getAttribute('#decide-form', 'method')).toBe('post');
    svc.logs.length = 0;
    await page.fill('input[name="question"]', CHOICE.question);
    await page.fill('textarea[name="context"]', CHOICE.context);
    await page.press('input[name="question"]', 'Enter'); // implicit submission: refused with Decide disabled
    await page.waitForLoadState();
    expect(page.url()).toBe(`${svc.url}/pass`);
    expect(svc.logs.join('\n')).not.toContain('transactions');
    await page.close();
  });
});
