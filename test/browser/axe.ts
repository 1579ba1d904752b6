import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One violation as a reader of a failed test wants it: the rule, its impact, where. */
export interface Violation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * axe-core's checks of the page as it is now (WCAG 2.x A and AA, and best practices),
 * run inside Chromium. The source is evaluated through the debugging protocol, which
 * the page's CSP does not govern, so the page's own policy stays as served.
 */
export async function axeViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(() =>
    (globalThis as any).axe.run((globalThis as any).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    }),
  );
  return (results.violations as any[]).map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    targets: v.nodes.map((n: any) => String(n.target)),
  }));
}

/** The violations a user of assistive technology is blocked or badly hindered by. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
