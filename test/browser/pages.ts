import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { ROOT } from '../support/cli.js';
import { isSufficiencyProbe, tokens } from '../support/scripts.js';
import type { Running } from '../support/service.js';
import { type Chromium, watch } from './chromium.js';

/** What the page tests share: reading the page as it settles, filling the form, the screenshots. */

/**
 * A new page without the last test's cookies (so without its pass), arriving from the
 * client IP `ip` (the server trusts X-Forwarded-For), so each test has the per-IP
 * limits to itself; `problems` collects the page's console errors and failed requests.
 */
export async function newPage(browser: Chromium, svc: Running, ip: string): Promise<{ page: Page; problems: string[] }> {
  await browser.context.clearCookies();
  const page = await browser.context.newPage();
  await page.setExtraHTTPHeaders({ 'x-forwarded-for': ip });
  return { page, problems: await watch(page, svc.url) };
}

/** How far the page reaches past the right edge of the screen, in CSS pixels (0 = no sideways scroll). */
export const sideways = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const doc = (globalThis as any).document.documentElement;
    return doc.scrollWidth - doc.clientWidth;
  });

/**
 * The text of `selector` once it matches `pattern` (the page updates after its fetches
 * finish). Callbacks like this one run in the page; its globals are reached through
 * `globalThis`, since the tests are compiled without the DOM's types.
 */
export async function textOnce(page: Page, selector: string, pattern: RegExp): Promise<string> {
  await page.waitForFunction(
    ([sel, source, flags]) => new RegExp(source, flags).test((globalThis as any).document.querySelector(sel)?.textContent ?? ''),
    [selector, pattern.source, pattern.flags] as const,
  );
  return (await page.textContent(selector))!;
}

/** What has the keyboard's focus, as `tag#id.class` and its text, once the page settles on `expected`. */
export async function focusOnce(page: Page, expected: string): Promise<string> {
  const describe = () =>
    page.evaluate(() => {
      const el = (globalThis as any).document.activeElement;
      return el
        ? `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${el.className ? '.' + String(el.className).split(' ').join('.') : ''}`
        : 'none';
    });
  try {
    await page.waitForFunction((want) => {
      const el = (globalThis as any).document.activeElement;
      return !!el && el.matches(want);
    }, expected);
  } catch (error) {
    throw new Error(`the focus never reached ${expected}: it is on ${await describe()}`, { cause: error });
  }
  return describe();
}

/** "Create a key" on the home page, as a user would: the new key, once shown. */
export async function createKey(page: Page, svc: Running): Promise<string> {
  await page.goto(`${svc.url}/`);
  await page.click('#create-key');
  await page.waitForSelector('#new-key:not([hidden])');
  return (await page.textContent('#new-key-value'))!;
}

/** Fills the pass page's form with a request of any mode. */
export async function fillDecision(
  page: Page,
  request: { mode: string; question: string; context: string; options?: readonly string[]; depth?: string },
) {
  await page.selectOption('select[name="mode"]', request.mode);
  await page.fill('input[name="question"]', request.question);
  await page.fill('textarea[name="context"]', request.context);
  for (let i = 0; i < 6; i++) {
    if (request.mode === 'choice') await page.fill(`input[name="options.${i}"]`, request.options?.[i] ?? '');
  }
  await page.check(`input[name="depth"][value="${request.depth ?? 'standard'}"]`);
}

/** Clicks Decide and waits for the answer it draws. */
export async function decideOnPage(page: Page) {
  await page.click('#decide-form button[type="submit"]');
  await page.waitForSelector('#answer:not([hidden])');
}

/** The fake engine from here on: a choice between PostgreSQL and MongoDB that hangs on the need for transactions. */
export function leanOnTransactions(svc: Running) {
  svc.fake.respond((body) => {
    if (isSufficiencyProbe(body)) return { labels: tokens(body, { Yes: 0.88, No: 0.12 }) };
    const leaning = JSON.stringify(body).includes('transactions across several tables');
    return { labels: tokens(body, leaning ? { PostgreSQL: 0.82, MongoDB: 0.18 } : { PostgreSQL: 0.35, MongoDB: 0.65 }) };
  });
}

/**
 * The screenshots of docs/browser.md are taken by the page tests: `DECIDE_SCREENSHOTS=1` writes
 * them to docs/, otherwise they are only checked to be images.
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = { fullPage: true }) {
  await page.evaluate(() => (globalThis as any).document.activeElement?.blur()); // no focus ring in the picture
  const png = await page.screenshot(options);
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  if (process.env.DECIDE_SCREENSHOTS === '1') fs.writeFileSync(path.join(ROOT, 'docs', `screenshot-${name}.png`), png);
}
