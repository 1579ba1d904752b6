import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHOICE } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';
import { seriousViolations } from './axe.js';
import { launchChromium, watch, type Chromium } from './chromium.js';
import { createKey, decideOnPage, fillDecision, leanOnTransactions, screenshot, sideways } from './pages.js';

/** Phone widths, narrow to wide; docs/browser.md's phone screenshot is taken at 390 × 844. */
const WIDTHS = [360, 390, 414];

type Box = { x: number; y: number; width: number; height: number };

/**
 * Both pages on a phone, in headless Chromium: nothing wider than the screen, Revoke
 * within reach, bars that keep their length, the checks table stacked with every
 * column's value labelled, and the header's logo clear of its links.
 */
describe('the pages on a phone, in headless Chromium', () => {
  let svc: Running;
  let browser: Chromium;
  let page: Page;
  let problems: string[];
  beforeAll(async () => {
    svc = await startWithOpenAI();
    browser = await launchChromium();
    leanOnTransactions(svc);
    page = await browser.context.newPage();
    problems = await watch(page, svc.url);
    await page.setViewportSize({ width: 390, height: 844 });
  }, scaled(90_000));
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  const overflow = () => sideways(page);
  const box = async (selector: string): Promise<Box> => (await page.locator(selector).first().boundingBox())!;
  const boxes = async (selector: string): Promise<Box[]> =>
    Promise.all((await page.locator(selector).all()).map(async (l) => (await l.boundingBox())!));
  const within = (b: Box, width: number) => b.x >= 0 && b.x + b.width <= width;

  /** The pass page with a stress answer drawn (the pass funded for it); its key made on the first visit. */
  async function stressAnswer() {
    await page.goto(`${svc.url}/pass`);
    if ((await page.locator('button.revoke').count()) === 0) await createKey(page, svc).then(() => page.goto(`${svc.url}/pass`));
    await svc.store.passes.fund((await page.textContent('#pass-id'))!, 5, new Date(), 'phone test');
    await fillDecision(page, { ...CHOICE, depth: 'stress' });
    await decideOnPage(page);
    await page.waitForSelector('#answer .stress');
  }

  async function atEachWidth(check: (width: number) => Promise<void>) {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 844 });
      await check(width);
    }
    await page.setViewportSize({ width: 390, height: 844 });
  }

  it('the home page: no sideways scroll; the logo stands clear of the links; the new key wraps', async () => {
    await createKey(page, svc);
    await atEachWidth(async (width) => {
      expect(await overflow(), `home at ${width} px`).toBe(0);
      const brand = await box('header .brand');
      const home = await box('header nav a[href="/"]');
      const sameLine = home.y < brand.y + brand.height;
      if (sameLine) expect(home.x - (brand.x + brand.width), `at ${width} px`).toBeGreaterThanOrEqual(16);
      expect(within(await box('#new-key-value'), width)).toBe(true);
      expect(within(await box('#copy-key'), width)).toBe(true);
    });
  });

  it('the pass page with a stress answer: no sideways scroll, Revoke in reach, full bars, every check labelled', async () => {
    await stressAnswer();
    await atEachWidth(async (width) => {
      expect(await overflow(), `pass at ${width} px`).toBe(0);
      expect(within(await box('button.revoke'), width), `Revoke at ${width} px`).toBe(true);
      for (const bar of await boxes('#answer .bar')) expect(bar.width, `a bar at ${width} px`).toBeGreaterThan(width * 0.6);
      // Stacked: each value under the label of its column, none off the screen.
      for (const cell of await boxes('#answer .checks td')) expect(within(cell, width), `a check cell at ${width} px`).toBe(true);
      const labels = await page
        .locator('#answer .checks tbody tr:first-child td')
        .evaluateAll((cells) => cells.map((td) => (globalThis as any).getComputedStyle(td, '::before').content));
      expect(labels).toEqual(['"Check"', '"Answer"', '"Agrees"', '"Shift"']);
    });
    // The phone view of docs/browser.md: one screen, from the answer's question down.
    await page.locator('#answer > h3').evaluate((h3) => (h3 as any).scrollIntoView({ block: 'start' }));
    await screenshot(page, 'phone', { fullPage: false });
    expect(problems).toEqual([]);
  });

  it('in dark mode on the phone: no serious or critical axe violation on either page', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await stressAnswer();
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${svc.url}/`);
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
  });
});
