import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, openaiEnv, ROOT } from '../support/cli.js';
import { NOUL } from '../support/requests.js';
import { commandsFor, FAMILY_OF } from '../../src/cli/commands.js';
import { decide, packagesLoaded, traceArgs, useClientFixture } from './helpers.js';
import { scaled } from '../support/time.js';
import { factsText } from '../fakes/openai-fake.js';

const UI = ['ink', 'react', 'ink-spinner', 'yoga-layout'];
/** decide's own token counter (engine/token-count.ts), for answers that carry no count. */
const TOKENIZER = 'gpt-tokenizer';
/** What only `serve`, the operators, `decide mcp` or the typed client need. */
const SERVER = [
  'hono',
  '@hono/node-server',
  'pg',
  'better-sqlite3',
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/client',
  'zod-openapi',
];

/**
 * Each command loads what it uses when it runs: ink and React only for human output,
 * Hono and the database drivers only for `serve` and the operators, nothing but
 * commander for help.
 */
describe('what the CLI loads', () => {
  let n = 0;
  const client = useClientFixture();

  /** Runs `decide …` recording the packages it loads. */
  async function traced(args: string[], env: Record<string, string> = {}) {
    const out = path.join(client.tmp.dir, `trace-${n++}.txt`);
    const run = await decide(args, { env: { ...env, TRACE_PACKAGES: out }, nodeArgs: traceArgs() });
    return { run, loaded: packagesLoaded(out) };
  }

  it('commands.ts knows where every command is defined, so a command line loads only its own definition', async () => {
    const all = (await commandsFor(undefined)).map(({ command }) => command.name());
    expect(Object.keys(FAMILY_OF).sort()).toEqual([...all].sort());
    for (const name of all) {
      const defined = (await commandsFor(name)).map(({ command }) => command.name());
      expect(defined).toContain(name);
      expect(defined.length).toBeLessThan(all.length);
    }
  });

  it('--help, usage --help and ask --help: commander and nothing else', async () => {
    for (const args of [['--help'], ['usage', '--help'], ['ask', '--help'], ['serve', '--help'], ['key', 'create', '--create', '--help']]) {
      const { run, loaded } = await traced(args);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.stdout).toContain('Usage: decide');
      expect([...loaded], args.join(' ')).toEqual(['commander']);
    }
  });

  it('a bad flag of an operator command: commander and zod (its schema), exit 64 before any database is opened', async () => {
    const { run, loaded } = await traced([
      'pass',
      'fund',
      '--pass',
      'pass_x',
      '--credits',
      '-1',
      '--db',
      path.join(client.tmp.dir, 'unused.db'),
    ]);
    expect(run.code).toBe(64);
    expect([...loaded].sort()).toEqual(['commander', 'zod']);
  });

  it('ask --json and usage --json: commander and zod (the contract), no undici, no ink, no React, no server code', async () => {
    const { key } = await client.svc.newKey();
    const env = { DECIDE_URL: client.svc.url, DECIDE_API_KEY: key };
    const ask = await traced(['ask', NOUL.question, '--context', NOUL.context, '--json'], env);
    expect(ask.run.code).toBe(0);
    expect([...ask.loaded].sort()).toEqual(['commander', 'zod']);

    const usage = await traced(['usage', '--json'], env);
    expect(usage.run.code).toBe(0);
    expect([...usage.loaded].sort()).toEqual(['commander', 'zod']);
  });

  it('human output loads ink (the tracer sees it), still no server code', async () => {
    const { key } = await client.svc.newKey();
    const { run, loaded } = await traced(['ask', NOUL.question, '--context', NOUL.context], {
      DECIDE_URL: client.svc.url,
      DECIDE_API_KEY: key,
    });
    expect(run.code).toBe(0);
    expect(loaded).toContain('ink');
    expect(loaded).toContain('react');
    for (const name of [...SERVER, 'undici']) expect(loaded).not.toContain(name);
  });

  it('operator commands: the ledger, no ink, no React, no Hono, no MCP SDK', async () => {
    const { run, loaded } = await traced(['pass', 'create', '--create', '--json', '--db', path.join(client.tmp.dir, 'ledger.db')]);
    expect(run.code).toBe(0);
    expect(loaded).toContain('better-sqlite3');
    for (const name of [...UI, 'hono', '@modelcontextprotocol/server', '@modelcontextprotocol/client']) expect(loaded).not.toContain(name);
  });

  it('decide serve, up and listening: no ink, no React, no tokenizer', async () => {
    const out = path.join(client.tmp.dir, 'trace-serve.txt');
    const child = spawn(process.execPath, [...traceArgs(), BIN, 'serve', '--port', '0', '--db', path.join(client.tmp.dir, 'serve.db')], {
      cwd: ROOT,
      env: cleanEnv({ ...openaiEnv('http://127.0.0.1:9/v1', 'sk-unused'), TRACE_PACKAGES: out }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let seen = '';
        const timer = setTimeout(() => reject(new Error(`decide serve did not start: ${seen}`)), scaled(15_000));
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          seen += d;
          if (seen.includes('decide listening on')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', (code) => reject(new Error(`decide serve exited ${code}`)));
      });
    } finally {
      child.kill('SIGKILL');
    }
    const loaded = packagesLoaded(out);
    expect(loaded).toContain('hono');
    for (const name of [...UI, TOKENIZER]) expect(loaded).not.toContain(name);
  });

  it('the o200k tokenizer: an engine loads it at its first answer that carries no count, not before', async () => {
    const out = path.join(client.tmp.dir, 'trace-tokenizer.txt');
    client.svc.fake.respond((body) => ({ usage: factsText(body) === 'uncounted' ? null : 5 }));
    const openai = pathToFileURL(path.join(ROOT, 'dist/engine/openai.js')).href;
    const script = `
      import fs from 'node:fs';
      const loaded = () => fs.existsSync(process.env.TRACE_PACKAGES) && fs.readFileSync(process.env.TRACE_PACKAGES, 'utf8').split('\\n').includes('${TOKENIZER}');
      const { createOpenAIEngine } = await import(${JSON.stringify(openai)});
      const engine = createOpenAIEngine({ baseUrl: process.env.FAKE_URL, model: 'm' });
      const q = { type: 'noul', instructions: 'Does it hold?' };
      const signal = new AbortController().signal;
      const counted = (await engine.ask('counted', { q }, signal)).inputTokens;
      const before = loaded();
      const uncounted = (await engine.ask('uncounted', { q }, signal)).inputTokens;
      console.log(JSON.stringify({ counted, before, uncounted, after: loaded() }));
      await engine.close();`;
    const { stdout } = await promisify(execFile)(process.execPath, [...traceArgs(), '--input-type=module', '-e', script], {
      cwd: ROOT,
      env: cleanEnv({ TRACE_PACKAGES: out, FAKE_URL: client.svc.fake.url }),
      timeout: scaled(15_000),
    });
    const seen = JSON.parse(stdout);
    expect(seen.counted).toBe(5);
    expect(seen.before).toBe(false);
    expect(seen.uncounted).toBeGreaterThan(0);
    expect(seen.after).toBe(true);
  });
});
