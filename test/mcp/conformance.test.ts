import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { assertBuilt, killChildren, openaiEnv, ROOT, startServe, tempDb, type Serving } from '../support/cli.js';
import { scaled } from '../support/time.js';

/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.13, the last
 * release that runs on Node 20), its CLI run as a child process against
 * `decide serve`: all on the loopback, offline.
 */

const require = createRequire(import.meta.url);
const CONFORMANCE = path.join(path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');

function conformance(url: string, scenario: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CONFORMANCE, 'server', '--url', url, '--scenario', scenario],
      { cwd: ROOT, timeout: scaled(60_000), env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: stdout + stderr }),
    );
  });
}

describe('MCP conformance server scenarios against decide serve', () => {
  let fake: OpenAIFake;
  let server: Serving;
  const db = tempDb();
  beforeAll(async () => {
    assertBuilt();
    fake = await startOpenAIFake();
    server = await startServe(['--db', db.db], openaiEnv(fake.url, 'sk-conformance-engine-secret'));
  });
  afterAll(async () => {
    await killChildren();
    await fake?.close();
    db.remove();
  });

  it.each(['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'])('%s passes', async (scenario) => {
    const { code, output } = await conformance(`${server.url}/mcp`, scenario);
    expect(output, output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    expect(code, output).toBe(0);
  });
});
