import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { scaled } from '../support/time.js';

/**
 * Real headless Chromium for the page tests: Debian's package (`apt-get install
 * chromium`; .ci/run installs it when missing), driven by playwright-core, with a
 * fresh profile each time. The machine may have no internet: Chromium's own
 * background traffic (updates, sync, field trials) is switched off rather than left
 * to fail against refused connections.
 */
export const CHROMIUM_PATH = process.env.DECIDE_CHROMIUM ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** `javaScriptEnabled: false`: a browser with scripts off, as some users keep theirs. */
export async function launchChromium(options: { javaScriptEnabled?: boolean } = {}): Promise<Chromium> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}: apt-get install -y chromium (or set DECIDE_CHROMIUM)`);
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport: { width: 1024, height: 800 },
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    timeout: scaled(60_000),
  });
  context.setDefaultTimeout(scaled(20_000));
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Everything a page does that it should not: script errors, console errors (a CSP
 * refusal is one), CSP violation events, and requests to any other origin than the
 * service's (the pages load no third-party script when verification is `none`).
 */
export async function watch(page: Page, origin: string) {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // Chromium reports every non-2xx fetch; a 400 is the page's own validation path.
    const expected = /^Failed to load resource: .* status of 400\b/.test(message.text());
    if (message.type() === 'error' && !expected) problems.push(`console: ${message.text()}`);
  });
  page.on('request', (request) => {
    if (!request.url().startsWith(origin + '/')) problems.push(`request to another origin: ${request.url()}`);
  });
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) =>
      console.error('CSP violation: ' + event.violatedDirective + ' ' + event.blockedURI));`,
  });
  return problems;
}
