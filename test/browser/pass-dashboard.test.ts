import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/contract/caller.js';
import { CHOICE } from '../support/requests.js';
import { manualClock, startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';
import { seriousViolations, type Violation } from './axe.js';
import { launchChromium, type Chromium } from './chromium.js';
import { createKey, decideOnPage, fillDecision, focusOnce, leanOnTransactions, newPage, sideways, textOnce } from './pages.js';

/**
 * The pass page as a dashboard, in headless Chromium: a pass without a live key says
 * so and makes one in place, which the form pays with at once; the keys' times in
 * words; the usage chart in the page's colours, light and dark, at 1280 and 360 px,
 * with no serious axe violation and nothing wider than a phone.
 */
describe('the pass page as a dashboard, in headless Chromium', () => {
  let svc: Running;
  let browser: Chromium;
  let nextIp = 20;
  const time = manualClock('2026-11-20T09:00:00.000Z');
  beforeAll(async () => {
    svc = await startWithOpenAI({ clock: time.clock, trustProxy: true });
    browser = await launchChromium();
    leanOnTransactions(svc);
  }, scaled(90_000));
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  /** axe's serious and critical violations of the page as it is, in light and in dark. */
  async function bothSchemes(page: Page): Promise<Record<string, Violation[]>> {
    const found: Record<string, Violation[]> = {};
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      found[colorScheme] = await seriousViolations(page);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    return found;
  }

  /** A page of a browser of its own, with a key made on the home page; its pass and the key's caller. */
  async function withKey(): Promise<{ page: Page; problems: string[]; caller: Caller }> {
    const { page, problems } = await newPage(browser, svc, `198.51.100.${nextIp++}`);
    await createKey(page, svc);
    await page.goto(`${svc.url}/pass`);
    const passId = (await page.textContent('#pass-id'))!;
    const row = page.locator('#keys tbody tr').first();
    const caller = { keyId: (await row.getAttribute('data-key-id'))!, passId, keyHint: (await row.locator('code').textContent())! };
    return { page, problems, caller };
  }

  it('a funded pass whose keys are all revoked: says so, makes a key in place, and the form pays with it', async () => {
    time.set('2026-11-20T09:00:00.000Z');
    const { page, problems, caller } = await withKey();
    await svc.store.passes.fund(caller.passId, 10, time.clock(), 'dashboard test');
    time.set('2026-11-22T09:00:00.000Z');
    await svc.store.keys.revoke(caller.keyId, time.clock());
    await page.goto(`${svc.url}/pass`);

    await expect(page.textContent('#no-live-key')).resolves.toMatch(
      /This pass has no live key: every key of it is revoked, so nothing can pay for a decision, and its 10 credits wait unused/,
    );
    expect(await page.isVisible('#no-key-reason')).toBe(true);
    expect(await page.isDisabled('#decide-form button[type="submit"]')).toBe(true);
    expect(await bothSchemes(page)).toEqual({ light: [], dark: [] });
    await page.click('#create-key');
    await focusOnce(page, '#copy-key');
    expect(await bothSchemes(page)).toEqual({ light: [], dark: [] });
    const key = (await page.textContent('#new-key-value'))!;
    expect(key).toMatch(/^dcd_api_/);
    expect(await page.isHidden('#no-key-reason')).toBe(true);
    expect(await page.inputValue('select[name="keyId"]')).toMatch(/^key_/);
    await fillDecision(page, CHOICE);
    await decideOnPage(page);
    await textOnce(page, '#answer', /PostgreSQL/);

    await page.goto(`${svc.url}/pass`); // the new key among the keys, the notice gone
    expect(await page.locator('#no-live-key').count()).toBe(0);
    await expect(page.locator('#keys tbody tr:not(.revoked) code').textContent()).resolves.toBe(`dcd_api_…${key.slice(-4)}`);
    await expect(page.locator('#keys tbody tr:not(.revoked) .last-used').textContent()).resolves.toBe('today');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a pass never funded, its key revoked, on a network out of keys: the refusal says why, and takes the focus', async () => {
    time.set('2026-11-22T12:00:00.000Z');
    const { page } = await withKey();
    await createKey(page, svc); // the network's second key of the day, on the same pass
    await page.goto(`${svc.url}/pass`);
    for (const id of await page.locator('button.revoke').evaluateAll((b) => b.map((x) => (x as any).dataset.keyId))) {
      await svc.store.keys.revoke(id, time.clock());
    }
    await page.goto(`${svc.url}/pass`);
    await page.click('#create-key');
    await focusOnce(page, '#create-error');
    await expect(page.textContent('#create-error')).resolves.toMatch(/^No key was created: this network has created 2 keys today/);
    expect(await page.isDisabled('#decide-form button[type="submit"]')).toBe(true);
    await page.close();
  });

  it('a key named on the page: the name shows in its row at once; a refused name is said beside the field, which takes the focus', async () => {
    time.set('2026-11-23T09:00:00.000Z');
    const { page, problems } = await withKey();
    await page.setViewportSize({ width: 360, height: 800 });
    const row = page.locator('#keys tbody tr').first();
    await row.locator('summary').click();
    await expect(row.locator('summary').textContent()).resolves.toMatch(/^Name it dcd_api_…/);
    await row.locator('input[name="name"]').fill('tab\there');
    await row.locator('button[type="submit"]').click();
    await focusOnce(page, '#keys input[name="name"][aria-invalid="true"]');
    await expect(row.locator('.field-error').textContent()).resolves.toBe(
      '1 to 100 characters, without control or invisible characters or surrounding spaces',
    );
    expect(await seriousViolations(page)).toEqual([]);
    expect(await sideways(page)).toBe(0);

    await row.locator('input[name="name"]').fill('  laptop of the night shift  ');
    await row.locator('input[name="name"]').press('Enter');
    await textOnce(page, '#keys tbody tr .key-name', /^laptop of the night shift$/);
    await focusOnce(page, '#keys summary');
    expect(await row.locator('details').getAttribute('open')).toBeNull();
    await expect(row.locator('summary').textContent()).resolves.toMatch(/^Rename dcd_api_…/);
    expect(await row.locator('.field-error').isHidden()).toBe(true);
    await page.reload(); // kept by the ledger
    await expect(page.locator('#keys tbody tr .key-name').textContent()).resolves.toBe('laptop of the night shift');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('keys and usage at 1280 and 360 px, light and dark: no serious axe violation, no sideways scroll, the chart in the page’s colours', {
    timeout: scaled(120_000),
  }, async () => {
    time.set('2026-11-10T09:00:00.000Z');
    const { page, problems, caller } = await withKey();
    await svc.store.passes.fund(caller.passId, 20, time.clock(), 'dashboard test');
    await svc.store.keys.create(time.clock(), caller.passId, 'nightly report generator of the payments team (staging)');
    for (const [at, depth] of [
      ['2026-11-12T10:00:00.000Z', 'standard'],
      ['2026-11-12T11:00:00.000Z', 'stress'],
      ['2026-11-21T10:00:00.000Z', 'standard'],
    ] as const) {
      const reserved = await svc.store.charges.reserve({ caller, depth, ip: '198.51.100.1' }, new Date(at));
      if (!reserved.ok) throw new Error(reserved.code);
      await svc.store.charges.commit(reserved.reservation.id, new Date(at));
    }
    time.set('2026-11-23T09:00:00.000Z');
    await page.goto(`${svc.url}/pass`);
    await page.click('#usage summary');
    expect(await page.locator('#usage-table tbody tr').count()).toBe(2);
    await expect(page.locator('#keys tbody tr').first().locator('td[data-label="Created"]').textContent()).resolves.toBe('13 days ago');

    const found: Record<string, Violation[]> = {};
    const fills: Record<string, string[]> = {};
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        found[`${width} px, ${colorScheme}`] = await seriousViolations(page);
        fills[colorScheme] = await page
          .locator('svg.usage-chart rect')
          .evaluateAll((rects) => rects.map((r) => (globalThis as any).getComputedStyle(r).fill));
      }
      expect(await sideways(page), `at ${width} px`).toBe(0);
      const chart = (await page.locator('svg.usage-chart').boundingBox())!;
      expect(chart.x + chart.width, `the chart at ${width} px`).toBeLessThanOrEqual(width);
      expect(chart.width, `the chart at ${width} px`).toBeGreaterThan(width * 0.6);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((state) => [state, []])));
    // Free and paid in two colours, each another in dark than in light.
    expect(new Set(fills.light).size).toBe(2);
    expect(fills.light.every((fill, i) => fill !== fills.dark[i])).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });
});
