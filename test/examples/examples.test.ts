import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanEnv, ROOT, runProgram, type CliResult } from '../support/cli.js';
import { scripted } from '../support/scripts.js';
import { openSqliteStore } from '../../src/ledger/sqlite/store.js';
import { startWithOpenAI, type Running } from '../support/service.js';

/**
 * examples/ as a reader would use them: the TypeScript compiled under `strict` against
 * the built package and run against a real server, the MCP configurations handed to
 * an MCP client as a desktop agent would read them, and the shell scripts run with
 * `decide` on the PATH (a symlink to bin/decide.js, as `npm install -g` makes).
 */

const EXAMPLES = path.join(ROOT, 'examples');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** What the examples write where the reader puts their own service and key. */
const DEFAULT_URL = 'http://127.0.0.1:8787';
const KEY_SLOT = 'dcd_api_…';

/** `command` with `decide` on the PATH, as after `npm install -g`. */
function run(command: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runProgram(command, args, { env: { PATH: `${binDir}${path.delimiter}${process.env.PATH}`, ...env } });
}

let binDir: string;
let svc: Running;
const closing: Array<() => Promise<void>> = [];

beforeAll(async () => {
  assertBuilt();
  binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-examples-bin-'));
  fs.symlinkSync(BIN, path.join(binDir, 'decide'));
  svc = await startWithOpenAI();
});
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});
afterAll(async () => {
  await svc?.close();
  fs.rmSync(binDir, { recursive: true, force: true });
});

describe('examples/*.ts and the exported types', () => {
  it('type-check under strict against the built package (`import … from "decide-service"`), with the type test', async () => {
    for (const project of ['examples', 'test/types']) {
      const checked = await run(process.execPath, [TSC, '-p', project, '--noEmit']);
      expect(checked.stdout + checked.stderr, project).toBe('');
      expect(checked.code, project).toBe(0);
    }
  });

  it('client.ts, compiled, decides once per mode against a real server and shows the usage left', async () => {
    // Inside the package folder, so that `decide-service` resolves to the package itself.
    const out = fs.mkdtempSync(path.join(EXAMPLES, '.out-'));
    closing.push(async () => fs.rmSync(out, { recursive: true, force: true }));
    const built = await run(process.execPath, [TSC, '-p', 'examples', '--outDir', out]);
    expect(built.stdout + built.stderr).toBe('');

    const { key } = await svc.newKey();
    svc.fake.respond(
      scripted({ PostgreSQL: 0.8, MongoDB: 0.2, Yes: 0.9, No: 0.1, low: 0.1, medium: 0.3, high: 0.6 }, { Yes: 0.9, No: 0.1 }),
    );
    const ran = await run(process.execPath, [path.join(out, 'client.js')], { DECIDE_URL: svc.url, DECIDE_API_KEY: key });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^choice: PostgreSQL, \d+ % \(confidence [01]\.\d\d: 0 = evenly split, 1 = certain\), signal \S+, context sufficiency [\d.]+$/,
      ),
      expect.stringMatching(/^noul: yes \d+ %, signal \S+, context sufficiency [\d.]+$/),
      expect.stringMatching(
        /^score: likeliest high, \d+ % \(confidence [01]\.\d\d: 0 = evenly split, 1 = certain\); score [\d.]+ of 0 to 2, signal \S+, context sufficiency [\d.]+$/,
      ),
      '17 free decisions left today, 0 pass credits',
    ]);
  });
});

describe('examples/mcp: configurations for a desktop agent', () => {
  /** The configuration as the agent reads it, pointed at this test's server and key. */
  function config(file: string, key: string) {
    const text = fs.readFileSync(path.join(EXAMPLES, 'mcp', file), 'utf8');
    expect(text).toContain(DEFAULT_URL);
    expect(text).toContain(KEY_SLOT);
    return JSON.parse(text.replaceAll(DEFAULT_URL, svc.url).replaceAll(KEY_SLOT, key)).mcpServers.decide;
  }

  async function usageThrough(client: Client) {
    closing.push(() => client.close());
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(['get_usage', 'stress_test_decision', 'weigh_decision']);
    const usage = await client.callTool({ name: 'get_usage', arguments: {} });
    expect(usage.isError).toBeFalsy();
    return usage.structuredContent as { freeRemaining: number };
  }

  it('desktop-bridge.json: its command and args start the stdio bridge, which reaches the server with its env', async () => {
    const { key } = await svc.newKey();
    const server = config('desktop-bridge.json', key);
    expect(server.command).toBe('decide');
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: cleanEnv({ PATH: `${binDir}${path.delimiter}${process.env.PATH}`, ...server.env }) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'examples-desktop', version: '1.0.0' });
    await client.connect(transport);
    expect((await usageThrough(client)).freeRemaining).toBe(20);
  });

  it('streamable-http.json: its URL and header reach the server itself', async () => {
    const { key } = await svc.newKey();
    const server = config('streamable-http.json', key);
    expect(server.type).toBe('http');
    const client = new Client({ name: 'examples-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }));
    expect((await usageThrough(client)).freeRemaining).toBe(20);
  });
});

describe('examples/*.sh', () => {
  it('ci-gate.sh passes a clear yes and fails anything else, printing the answer', async () => {
    const { key } = await svc.newKey();
    const dir = fs.mkdtempSync(path.join(svc.dir, 'gate-'));
    const facts = path.join(dir, 'release-notes.md');
    fs.writeFileSync(facts, '- All 412 tests pass.\n- The change is behind a flag that is off.\n- The on-call engineer is in.\n');
    const gate = () =>
      run('sh', [path.join(EXAMPLES, 'ci-gate.sh'), 'Should this build be deployed to production?', facts], {
        DECIDE_URL: svc.url,
        DECIDE_API_KEY: key,
      });

    svc.fake.respond(scripted({ Yes: 0.9, No: 0.1 }, { Yes: 0.9, No: 0.1 }));
    const yes = await gate();
    expect(yes.code, yes.stderr).toBe(0);
    expect(JSON.parse(yes.stdout)).toMatchObject({ mode: 'noul', signal: 'yes' });

    svc.fake.respond(scripted({ Yes: 0.5, No: 0.5 }, { Yes: 0.9, No: 0.1 }));
    const unclear = await gate();
    expect(unclear.code).toBe(1);
    expect(JSON.parse(unclear.stdout).signal).toBe('unclear');
    expect(unclear.stderr).toContain('--fail-on unclear');

    const missing = await run('sh', [path.join(EXAMPLES, 'ci-gate.sh'), 'Should this build be deployed?']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('usage: ci-gate.sh QUESTION FACTS_FILE');
  });

  it('operator.sh makes a funded pass and a key on it, in a SQLite ledger it names', async () => {
    const db = path.join(fs.mkdtempSync(path.join(svc.dir, 'operator-')), 'decide.db');
    // The ledger as `decide serve` made it: the script works on the server's ledger and never makes one.
    await openSqliteStore(db, { freePerKey: 20, freePerIp: 0, freePerSite: 0 }).close();
    const made = await run('sh', [path.join(EXAMPLES, 'operator.sh'), '100'], { DECIDE_DB: db });
    expect(made.code, made.stderr).toBe(0);
    const [keyLine, passLine, hintLine] = made.stdout.trimEnd().split('\n');
    const key = /^key: (dcd_api_\w{49})$/.exec(keyLine)?.[1];
    expect(key).toBeDefined();
    expect(passLine).toMatch(/^pass pass_\S+: 100 credits$/);
    expect(hintLine).toContain(`dcd_api_…${key!.slice(-4)}`);
    // Each write named the ledger it went to.
    expect(made.stderr).toContain(`in the ledger ${db}`);

    const shown = await run(process.execPath, [BIN, 'pass', 'show', '--pass', passLine.split(/[ :]/)[1], '--json', '--db', db]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ passCredits: 100, fundedEver: true });
  });

  it('operator.sh in a folder with no ledger stops at the first step, saying why, and makes nothing', async () => {
    const folder = fs.mkdtempSync(path.join(svc.dir, 'nowhere-'));
    const made = await run('sh', [path.join(EXAMPLES, 'operator.sh'), '100'], { DECIDE_DB: path.join(folder, 'decide.db') });
    expect(made.code).not.toBe(0);
    // One failure, the first step's: nothing after it ran (with a pass named "undefined").
    expect(made.stderr.match(/^decide: /gm), made.stderr).toHaveLength(1);
    expect(made.stderr + made.stdout).not.toContain('undefined');
    expect(made.stdout).not.toContain('key: ');
    expect(fs.readdirSync(folder)).toEqual([]);
  });
});
