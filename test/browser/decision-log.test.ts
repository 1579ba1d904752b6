import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHOICE } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';
import { axeViolations } from './axe.js';
import { launchChromium, watch, type Chromium } from './chromium.js';
import { createKey, decideOnPage, fillDecision, leanOnTransactions, sideways, textOnce } from './pages.js';

/**
 * The pass page's decision log and its "View as curl / TypeScript", and the home
 * page's snippets filled with a new key, in headless Chromium at a desktop's width
 * and a phone's: what they show, their copy buttons by keyboard, axe, and no sideways
 * scroll.
 */
describe('the decision log and the request as code, in headless Chromium', () => {
  let svc: Running;
  let browser: Chromium;
  let page: Page;
  let problems: string[];
  let key: string;
  beforeAll(async () => {
    svc = await startWithOpenAI({ decisionLog: 'full' });
    leanOnTransactions(svc);
    browser = await launchChromium();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
    page = await browser.context.newPage();
    problems = await watch(page, svc.url);
    await page.setViewportSize({ width: 1280, height: 900 });
    key = await createKey(page, svc);
  }, scaled(90_000));
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  const clipboard = () => page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>);
  const snippet = (block: string, kind: 'curl' | 'ts') => page.textContent(`#${block} [data-snippet="${kind}"]`) as Promise<string>;

  it('the home page fills its snippets with the key just created, each copied by keyboard', async () => {
    expect(await snippet('key-code', 'curl')).toContain(`-H 'Authorization: Bearer ${key}'`);
    expect(await snippet('key-code', 'curl')).toContain(`curl -sS '${svc.url}/v1/decisions'`);
    expect(await snippet('key-code', 'ts')).toContain(`new DecideClient({ url: "${svc.url}", apiKey: "${key}" })`);

    await page.focus('#key-code button[data-copy="ts"]');
    await page.keyboard.press('Enter');
    await textOnce(page, '#key-code [data-copy-state]', /^Copied the TypeScript\.$/);
    expect(await clipboard()).toBe(await snippet('key-code', 'ts'));
    expect(await page.getAttribute('#key-code [data-copy-state]', 'aria-live')).toBe('polite');
    expect(await axeViolations(page)).toEqual([]);
  });

  it("the pass page's code follows the form as it changes, with the key's hint in the key's place", async () => {
    await page.goto(`${svc.url}/pass`);
    const hint = (await page.textContent('select[name="keyId"] option'))!;
    await page.click('#as-code summary');
    await fillDecision(page, { ...CHOICE, question: 'Which "database", at $5 a month?' });
    const curl = await snippet('form-code', 'curl');
    expect(curl).toContain(`-H 'Authorization: Bearer ${hint}'`);
    expect(curl).toContain('"question": "Which \\"database\\", at $5 a month?"');
    expect(curl).toContain('"options": [\n    "PostgreSQL",\n    "MongoDB"\n  ]');
    expect(curl).not.toContain(key.slice(0, -4)); // the page never has the key
    expect(await page.textContent('#as-code [data-key-placeholder]')).toBe(hint);

    await page.selectOption('select[name="mode"]', 'score');
    const ts = await snippet('form-code', 'ts');
    expect(ts).toContain('  mode: "score",');
    expect(ts).toContain('  levels: ["low", "medium", "high"],');
    expect(ts).not.toContain('options');

    await page.focus('#form-code button[data-copy="curl"]');
    await page.keyboard.press('Space');
    await textOnce(page, '#form-code [data-copy-state]', /^Copied the curl command\.$/);
    expect(await clipboard()).toBe(await snippet('form-code', 'curl'));
  });

  it("lists the pass's decisions, newest first, the time in words and exactly in its title", async () => {
    await page.goto(`${svc.url}/pass`);
    await fillDecision(page, CHOICE);
    await decideOnPage(page);
    const byApi = { ...CHOICE, question: 'Which database should the API caller adopt?', depth: 'standard' };
    expect((await svc.call('POST', '/v1/decisions', { key, json: byApi })).status).toBe(200);
    await page.goto(`${svc.url}/pass`);

    const rows = page.locator('#decision-log tbody tr');
    expect(await rows.count()).toBe(2);
    const [api, web] = (await rows.allTextContents()).map((row) => row.replace(/\s+/g, ' ').trim());
    expect(api).toMatch(/^just now.*API.*choice, standard.*the API caller/);
    // The top answer with its probability, then its confidence as a number from 0 to 1, not a percentage.
    expect(web).toMatch(/^just now.*this page.*choice, standard.*PostgreSQL, \d+\.\d% ?[01]\.\d\d ?\S+ ?free$/);
    expect(web).toContain(CHOICE.question);
    const time = page.locator('#decision-log time').first();
    const datetime = (await time.getAttribute('datetime'))!;
    expect(await time.getAttribute('title')).toBe(`${datetime.slice(0, 10)} ${datetime.slice(11, 19)} UTC`);
  });

  it('passes axe at 1280 px and at 360 px, where nothing scrolls sideways', async () => {
    await page.goto(`${svc.url}/pass`);
    await page.click('#as-code summary');
    await fillDecision(page, { ...CHOICE, context: `${CHOICE.context} ${'A long fact without a break '.repeat(8)}` });
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForSelector('#decision-log tbody tr');
      expect(await axeViolations(page), `${width} px`).toEqual([]);
      expect(await sideways(page), `${width} px`).toBe(0);
    }
    // The home page at 360 px, its snippets filled with a second key.
    await createKey(page, svc);
    expect(await axeViolations(page), 'home, 360 px').toEqual([]);
    expect(await sideways(page), 'home, 360 px').toBe(0);
    expect(problems).toEqual([]);
  });
});
