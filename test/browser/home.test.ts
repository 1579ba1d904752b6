import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';
import { seriousViolations } from './axe.js';
import { launchChromium, type Chromium } from './chromium.js';
import { createKey, newPage, textOnce } from './pages.js';

/**
 * The home page's one key panel, in headless Chromium: a key not yet copied is not
 * replaced without a warning, and a refused key takes the panel's place instead of
 * standing above the last key. Each test is a browser of its own, on its own IP
 * (through a trusted proxy's X-Forwarded-For), since an IP makes 2 keys a day.
 */
describe('the home page keeps one key panel, in headless Chromium', () => {
  let svc: Running;
  let browser: Chromium;
  let nextIp = 10;
  beforeAll(async () => {
    svc = await startWithOpenAI({ trustProxy: true });
    browser = await launchChromium();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
  }, scaled(90_000));
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  const freshPage = () => newPage(browser, svc, `198.51.100.${nextIp++}`);

  /** What a user reads of the key panel and the messages around "Create a key", hidden parts left out. */
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point: what is hidden is not read
  const shown = (page: Page) => page.locator('#get-key').innerText();

  /**
   * Clicks "Create a key" with `old` shown, and waits for what comes first: a warning
   * that `old` has not been copied, a new key, or a refusal. What the panel then shows.
   */
  async function createAgain(page: Page, old: string) {
    await page.click('#create-key');
    await page.waitForFunction((key) => {
      const doc = (globalThis as any).document;
      const changed = doc.querySelector('#new-key-value').textContent !== key;
      return changed || doc.querySelector('#replace-warning:not([hidden])') || doc.querySelector('#create-error:not([hidden])');
    }, old);
    return { key: (await page.textContent('#new-key-value'))!, text: await shown(page) };
  }

  it('a second "Create a key" asks first when the key shown was not copied, and replaces it when asked again', async () => {
    const { page, problems } = await freshPage();
    const first = await createKey(page, svc);
    const asked = await createAgain(page, first);
    expect(asked.key).toBe(first); // still there, to be copied
    expect(asked.text).toContain('The key below has not been copied');
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await seriousViolations(page), `the warning, ${colorScheme}`).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    const replaced = await createAgain(page, first);
    expect(replaced.key).toMatch(/^dcd_api_/);
    expect(replaced.key).not.toBe(first);
    expect(replaced.text).not.toContain(first);
    expect(replaced.text).not.toContain('not been copied');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('once copied, the key is replaced without a question; a refused key takes the place of the last one', async () => {
    const { page, problems } = await freshPage();
    const first = await createKey(page, svc);
    await page.click('#copy-key');
    await textOnce(page, '#copy-state', /Copied/);
    const second = await createAgain(page, first);
    expect(second.key).not.toBe(first); // no question: the key was copied
    expect(second.text).not.toContain('not been copied');
    await page.click('#copy-key');
    await textOnce(page, '#copy-state', /Copied/);

    const refused = await createAgain(page, second.key); // this IP's third key of the day
    expect(refused.text).toMatch(/No key was created: this network has created 2 keys today/);
    expect(refused.text).not.toContain(second.key);
    expect(refused.text).not.toContain('Copy this key now');
    expect(problems).toEqual(['console: Failed to load resource: the server responded with a status of 429 (Too Many Requests)']);
    await page.close();
  });

  it('a key copied by hand (selected, then Ctrl+C) is replaced without a question', async () => {
    const { page, problems } = await freshPage();
    const first = await createKey(page, svc);
    await page.locator('#new-key-value').selectText();
    await page.keyboard.press('Control+C');
    await expect(page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).resolves.toBe(first);
    const second = await createAgain(page, first);
    expect(second.key).not.toBe(first);
    expect(second.text).not.toContain('not been copied');
    expect(problems).toEqual([]);
    await page.close();
  });
});
