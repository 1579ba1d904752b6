import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';
import { launchChromium, watch, type Chromium } from './chromium.js';
import { createKey, sideways } from './pages.js';

/** The narrowest phone the pages are made for, and a desktop. */
const WIDTHS = [360, 1280];

/**
 * The pass page at a phone's width and a desktop's, in headless Chromium: every
 * choice of the decision form reads whole, arming Revoke moves nothing, and nothing
 * scrolls sideways.
 */
describe('the pass page keeps its layout, in headless Chromium', () => {
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
  }, scaled(90_000));
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  const overflow = () => sideways(page);

  it('the Depth choice shows the whole text of each depth, its cost included', async () => {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${svc.url}/pass`);
      // A group named Depth, each radio named by its text.
      await expect(page.getByRole('group', { name: 'Depth' }).getByRole('radio').count()).resolves.toBe(2);
      await expect(page.getByRole('radio', { name: 'stress: reversed and leave-one-fact-out checks, 5 credits' }).count()).resolves.toBe(1);
      const labels = page.locator('#decide-form label:has(input[name="depth"])');
      await expect(labels.allInnerTexts()).resolves.toEqual([
        'standard: free allowance, then 1 credit',
        'stress: reversed and leave-one-fact-out checks, 5 credits',
      ]);
      // Whole: no label cut off by its own box or by the screen's edge.
      const boxes = await labels.evaluateAll((all) =>
        all.map((label: any) => ({ scroll: label.scrollWidth, client: label.clientWidth, right: label.getBoundingClientRect().right })),
      );
      for (const box of boxes) {
        expect(box.scroll, `at ${width} px`).toBeLessThanOrEqual(box.client);
        expect(box.right, `at ${width} px`).toBeLessThanOrEqual(width);
      }
      expect(await overflow(), `at ${width} px`).toBe(0);
    }
    expect(problems).toEqual([]);
  });

  it('arming Revoke keeps the layout of the keys table: its columns, the row, the button', async () => {
    /** The header cells' widths (the columns), and the boxes of the key's cells and of its button (the stacked row on a phone). */
    const layout = () =>
      page.evaluate(() => {
        const doc = (globalThis as any).document;
        const boxOf = (el: any) => {
          const { x, y, width, height } = el.getBoundingClientRect();
          return { x, y, width, height };
        };
        return {
          columns: [...doc.querySelectorAll('#keys th')].map((th: any) => th.getBoundingClientRect().width),
          row: [...doc.querySelectorAll('#keys tbody tr:first-child td')].map(boxOf),
          button: boxOf(doc.querySelector('#keys button.revoke')),
        };
      });
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${svc.url}/pass`);
      const before = await layout();
      await page.click('button.revoke');
      await page.getByRole('button', { name: /^Confirm: revoke dcd_api_…/ }).waitFor();
      expect(await layout(), `at ${width} px`).toEqual(before);
      expect(await overflow(), `at ${width} px`).toBe(0);
    }
    expect(problems).toEqual([]);
  });
});
