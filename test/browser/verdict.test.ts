import { renderToString } from 'ink';
import type { Page } from 'playwright-core';
import { createElement as h } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DecisionView } from '../../src/cli/ui/decision-view.js';
import { ColorScope } from '../../src/cli/ui/paint.js';
import type { DecisionResponse } from '../../src/contract/index.js';
import { CHOICE } from '../support/requests.js';
import { isSufficiencyProbe, scripted, tokens } from '../support/scripts.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';
import { seriousViolations, type Violation } from './axe.js';
import { launchChromium, type Chromium } from './chromium.js';
import { createKey, fillDecision, leanOnTransactions, newPage, sideways, textOnce } from './pages.js';

/**
 * The pass page's words about an answer, in headless Chromium: a stress answer's one
 * verdict and its words are the CLI's for the same answer; while deciding, the time
 * ticks beside what the model is asked, read out once; an engine's failure is said in
 * plain words. Each state is checked at 1280 and 360 px, with axe in light and dark.
 */
describe("the pass page's verdict, progress and engine failures, in headless Chromium", () => {
  let svc: Running;
  let browser: Chromium;
  let page: Page;
  let problems: string[];
  beforeAll(async () => {
    svc = await startWithOpenAI({ trustProxy: true });
    browser = await launchChromium();
    ({ page, problems } = await newPage(browser, svc, '198.51.100.77'));
    await createKey(page, svc);
    await page.goto(`${svc.url}/pass`);
    await svc.store.passes.fund((await page.textContent('#pass-id'))!, 40, new Date(), 'verdict test');
  }, scaled(90_000));
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  /** The page as it is now at 1280 and at 360 px, in light and dark: axe's serious findings, and any sideways scroll on the phone. */
  async function check(state: string, found: Record<string, unknown>) {
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        found[`${state}, ${width} px, ${colorScheme}`] = await seriousViolations(page);
      }
      if (width === 360) found[`${state}, 360 px, sideways`] = await sideways(page);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }
  const clean = (found: Record<string, unknown>) =>
    Object.fromEntries(Object.keys(found).map((state) => [state, state.endsWith('sideways') ? 0 : ([] as Violation[])]));

  /** Decide on the page; the answer the page was given, once it is drawn. */
  async function decide(): Promise<DecisionResponse> {
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/v1/web/decisions')),
      page.click('#decide-form button[type="submit"]'),
    ]);
    await page.waitForSelector('#answer:not([hidden])');
    return (await response.json()) as DecisionResponse;
  }

  /** What the CLI prints for the same answer, on one line (a wide terminal, runs of spaces as one). */
  const cliWords = (response: DecisionResponse) =>
    renderToString(h(ColorScope, { color: false }, h(DecisionView, { response, columns: 300 })), { columns: 300 }).replace(/\s+/g, ' ');
  const text = async (selector: string) => ((await page.textContent(selector)) ?? '').replace(/\s+/g, ' ').trim();

  const cases = [
    {
      name: 'fragile',
      engine: () => leanOnTransactions(svc),
      verdict: 'Verdict: fragile: one fact decides it (without fact 2 the answer changes)',
    },
    {
      name: 'stable',
      engine: () => svc.fake.respond(scripted({ PostgreSQL: 0.8, MongoDB: 0.2 }, { Yes: 0.9, No: 0.1 })),
      verdict: 'Verdict: stable (every check agrees with the answer)',
    },
    {
      name: 'needs more facts',
      engine: () => svc.fake.respond(scripted({ PostgreSQL: 0.8, MongoDB: 0.2 }, { Yes: 0.2, No: 0.8 })),
      verdict: 'Verdict: needs more facts (the context sufficiency is under 50%)',
    },
  ];

  it('a stress answer shows one verdict, and the signal, context and checks in the words the CLI prints for it', {
    timeout: scaled(120_000),
  }, async () => {
    const found: Record<string, unknown> = {};
    await page.setViewportSize({ width: 1280, height: 900 });
    for (const { name, engine, verdict } of cases) {
      engine();
      await fillDecision(page, { ...CHOICE, depth: 'stress' });
      const response = await decide();
      const cli = cliWords(response);
      await expect(text('#answer .verdict')).resolves.toBe(verdict);
      expect(cli).toContain(verdict);
      // The signal: its name on the badge, then what it means; the CLI says both with a colon between.
      const badge = await text('#answer .signal .badge');
      const signal = await text('#answer .signal');
      expect(cli).toContain(`Signal: ${badge}: ${signal.slice(badge.length).trim()}`);
      if (response.signal === 'needs-context') expect(badge).toBe('needs context');
      expect(cli).toContain(await text('#answer .sufficiency'));
      expect(cli).toContain(await text('#answer .stress h3'));
      // Each check named alike (the CLI quotes the fact; the page shows it whole).
      const checks = await page.locator('#answer .checks tbody tr td:first-child').allTextContents();
      expect(checks[0]).toBe('order reversed');
      for (const [i, name] of checks.slice(1).entries()) {
        expect(name).toMatch(new RegExp(`^without fact ${i + 1}: `));
        expect(cli).toContain(`without fact ${i + 1}: "${name.slice(name.indexOf(': ') + 2)}"`);
      }
      const pivot = response.stress?.pivot;
      if (pivot) {
        // Named alike, and what leaving it out does in the same sentence (contract/wording.ts `pivotWords`).
        const shown = await text('#answer .pivot');
        expect(shown).toMatch(new RegExp(`^Decisive fact ${pivot.factIndex + 1}: `));
        expect(cli).toContain(`Decisive fact ${pivot.factIndex + 1}: `);
        const sentence = shown.slice(shown.indexOf('Without it'));
        expect(sentence).toMatch(
          /^Without it the answer shifts by [\d.]+% (and flips: the decision rests on this fact|but does not flip)\.$/,
        );
        expect(cli.replace(/\s+/g, ' ')).toContain(sentence);
      } else {
        expect(cli).toContain(await text('#answer .stress > p.muted'));
      }
      await check(`a ${name} stress answer`, found);
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(found).toEqual(clean(found));
  });

  it('a standard answer has no verdict, and its context is in the same words as in the CLI', async () => {
    svc.fake.respond(scripted({ PostgreSQL: 0.6, MongoDB: 0.4 }, { Yes: 0.7, No: 0.3 }));
    await fillDecision(page, CHOICE);
    const response = await decide();
    expect(await page.locator('#answer .verdict').count()).toBe(0);
    await expect(text('#answer .sufficiency')).resolves.toMatch(/^Context: partly sufficient \(\d+%\)$/);
    expect(cliWords(response)).toContain(await text('#answer .sufficiency'));
    expect(cliWords(response)).not.toContain('Verdict');
  });

  it('while a stress test runs: the seconds tick beside what the model is asked, which is read out once; a timeout then says what to do', {
    timeout: scaled(120_000),
  }, async () => {
    const found: Record<string, unknown> = {};
    svc.fake.respond((body) => (isSufficiencyProbe(body) ? { labels: tokens(body, { Yes: 0.9, No: 0.1 }) } : { hang: true }));
    await fillDecision(page, { ...CHOICE, depth: 'stress' });
    await page.click('#decide-form button[type="submit"]');
    await textOnce(page, '#decide-elapsed', /^Deciding… 0 s: $/);
    const asked = 'asking the model once with every fact and the options reversed, then once without each fact';
    await expect(page.textContent('#decide-progress')).resolves.toBe(asked);
    expect(await page.getAttribute('#decide-progress', 'role')).toBe('status');
    // The ticking seconds are not in the live region, nor read at all: only what is asked is announced.
    expect(await page.getAttribute('#decide-elapsed', 'aria-hidden')).toBe('true');
    await expect(page.locator('#decide-progress').ariaSnapshot()).resolves.toContain(asked);
    await check('deciding', found);
    await textOnce(page, '#decide-elapsed', /^Deciding… [1-9]\d* s: $/);
    await expect(page.textContent('#decide-progress')).resolves.toBe(asked); // unchanged: not announced again

    await textOnce(page, '#decide-error', /./); // the service's deadline fires
    await expect(page.textContent('#decide-error')).resolves.toBe('The model did not answer in time. Nothing was charged; try again.');
    await expect(page.textContent('#decide-progress')).resolves.toBe('');
    await expect(page.textContent('#decide-elapsed')).resolves.toBe('');
    await check('after a timeout', found);
    expect(found).toEqual(clean(found));
  });

  it("an engine's other failures are said in plain words too, with the service's wait; nothing was charged", {
    timeout: scaled(60_000),
  }, async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const found: Record<string, unknown> = {};
    const credits = await page.textContent('#pass-credits');
    const failures = [
      { engine: { garbage: true }, words: /^The model gave an answer that could not be read\. Nothing was charged; try again\.$/ },
      {
        engine: { status: 500, body: '{"error":"boom"}' },
        words: /^The model cannot be reached just now\. Nothing was charged; try again in \d+ s\.$/,
      },
    ];
    for (const { engine, words } of failures) {
      svc.fake.respond(() => engine);
      await fillDecision(page, { ...CHOICE, depth: 'stress' });
      await page.click('#decide-form button[type="submit"]');
      await expect(textOnce(page, '#decide-error', /./)).resolves.toMatch(words);
      await check(`after ${JSON.stringify(engine)}`, found);
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await expect(page.textContent('#pass-credits')).resolves.toBe(credits);
    expect(found).toEqual(clean(found));
    expect(problems.filter((p) => !/status of (502|503|504)/.test(p))).toEqual([]);
  });
});
