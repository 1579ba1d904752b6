import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, ROOT } from '../support/cli.js';
import { startWithOpenAI, type Running } from '../support/service.js';

/** A consumer's view: `import { DecideClient } from 'decide-service'` resolves to the built client. */
function runModule(
  source: string,
  env: Record<string, string>,
  traceFile: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['--import', path.join(ROOT, 'test/cli-client/trace-imports.mjs'), '--input-type=module', '-e', source],
    { cwd: ROOT, env: { ...process.env, ...env, TRACE_PACKAGES: traceFile }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** `npm …` in the project: its standard output. */
function npm(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`npm ${args[0]} exited ${code}`))));
  });
}

describe("the package entry 'decide-service'", () => {
  let svc: Running;
  let dir: string;
  beforeAll(async () => {
    assertBuilt();
    svc = await startWithOpenAI();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-package-'));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await svc.close();
  });

  it('exports the client, its error and the contract; loads no server, CLI or UI code', async () => {
    const { key } = await svc.newKey();
    const trace = path.join(dir, 'trace.txt');
    const source = `
      import { DecideClient, DecideError, DecisionResponse, isWellFormedKey } from 'decide-service';
      const client = new DecideClient({ url: process.env.URL, apiKey: process.env.KEY });
      const answer = await client.decide({ mode: 'noul', question: 'Should we ship the release on Friday?',
        context: 'All tests pass. The on-call engineer is away next week.' });
      let refused;
      try { await new DecideClient({ url: process.env.URL }).usage(); } catch (e) { refused = e; }
      console.log(JSON.stringify({ mode: answer.mode, valid: DecisionResponse.safeParse(answer).success,
        wellFormed: isWellFormedKey(process.env.KEY), error: refused instanceof DecideError, status: refused.status, code: refused.code }));
    `;
    const run = await runModule(source, { URL: svc.url, KEY: key }, trace);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ mode: 'noul', valid: true, wellFormed: true, error: true, status: 401, code: 'unauthorized' });
    const loaded = new Set(fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean));
    expect(loaded).toContain('zod');
    // The client talks through Node's own fetch; the undici package loads only for a caller's dispatcher.
    for (const name of ['undici', 'ink', 'react', 'commander', 'hono', 'better-sqlite3', 'zod-openapi']) expect(loaded).not.toContain(name);
  });

  it('package.json points main, types and exports at the built client, with its declarations', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.exports['.']).toEqual({ types: './dist/client/index.d.ts', default: './dist/client/index.js' });
    expect(pkg.main).toBe('./dist/client/index.js');
    expect(pkg.types).toBe('./dist/client/index.d.ts');
    const types = fs.readFileSync(path.join(ROOT, 'dist/client/index.d.ts'), 'utf8');
    expect(types).toContain('DecideClient');
    expect(fs.readFileSync(path.join(ROOT, 'dist/client/client.d.ts'), 'utf8')).toContain('decide(request: DecisionRequestInput');
  });

  it('npm pack holds the LICENSE, examples/ and every file the README and docs link to', async () => {
    const packed = await npm(['pack', '--dry-run', '--json', '--ignore-scripts']);
    const files = new Set<string>(JSON.parse(packed)[0].files.map((f: { path: string }) => f.path));
    for (const name of [
      'LICENSE',
      'README.md',
      'bin/decide.js',
      'dist/client/index.d.ts',
      'examples/client.ts',
      'examples/ci-gate.sh',
      'examples/operator.sh',
    ]) {
      expect(files, name).toContain(name);
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8')).toMatch(new RegExp(`^${pkg.license} License`));

    // Relative links, as the package page resolves them: each names a file in the package.
    const linked = ['README.md', ...[...files].filter((f) => f.startsWith('docs/') && f.endsWith('.md'))].flatMap((doc) =>
      [...fs.readFileSync(path.join(ROOT, doc), 'utf8').matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
        .map((m) => m[1])
        .filter((target) => !/^[a-z]+:/.test(target))
        .map((target) => ({ doc, target: path.posix.normalize(path.posix.join(path.posix.dirname(doc), target)) })),
    );
    expect(linked.length).toBeGreaterThan(5);
    for (const { doc, target } of linked) expect(files, `${doc} links to ${target}`).toContain(target);
  });

  /**
   * The local engine's runtime (node-llama-cpp, ~700 MB of native binaries) is left out
   * by installing decide plainly, not with `npm install --omit=optional`: that flag
   * cannot pick one package, and also strips the native bindings vitest's bundler
   * needs. So it is an optional peer (a user adds it beside decide, and npm holds it to
   * the range) and a dev dependency (the tests run on it), and a production tree has
   * none of it.
   */
  it('node-llama-cpp comes apart from decide: an optional peer, a dev dependency here, in no production tree', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.peerDependenciesMeta['node-llama-cpp']).toEqual({ optional: true });
    expect(pkg.devDependencies['node-llama-cpp']).toBe(pkg.peerDependencies['node-llama-cpp']);
    expect({ ...pkg.dependencies, ...pkg.optionalDependencies }).not.toHaveProperty('node-llama-cpp');

    // npm's own view of the installed tree: what `npm install --omit=dev` would keep.
    const names: string[] = JSON.parse(await npm(['query', '.prod'])).map((p: { name: string }) => p.name);
    expect(names).toContain('better-sqlite3');
    expect(names.filter((name) => name.includes('node-llama-cpp'))).toEqual([]);
  });
});
