import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { killChildren, openaiEnv, ROOT, runProgram, startServe, type CliResult } from '../support/cli.js';
import { scaled } from '../support/time.js';

/**
 * The package as production gets it: `npm pack` (whose `prepack` builds dist/) and
 * `npm install --omit=dev` of the tarball into a fresh project, from the npm registry.
 * `--omit=optional` leaves out node-llama-cpp (hundreds of megabytes of binaries the
 * local engine needs, and nothing here does: serve runs on a loopback fake engine), so
 * the install stays small; better-sqlite3, a native binding, is built or fetched as a
 * user's install would. The first install takes minutes on a busy machine: the
 * deadlines are generous and nothing is timed.
 */

const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/** Fails with everything the program said unless it exited 0. */
function succeeded(result: CliResult, what: string): CliResult {
  if (result.code !== 0)
    throw new Error(`${what} exited ${result.code ?? result.signal}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return result;
}

/**
 * The sources as a clone has them, without dist/ (so that the tarball's dist/ can only
 * come from `prepack`) and sharing this clone's node_modules for the compiler: packing
 * here would rebuild the dist/ other test files are loading.
 */
function cloneWithoutBuild(into: string): string {
  const skip = new Set(['node_modules', 'dist', 'test', 'bench']);
  for (const entry of fs.readdirSync(ROOT)) {
    if (skip.has(entry) || entry.startsWith('.')) continue;
    fs.cpSync(path.join(ROOT, entry), path.join(into, entry), { recursive: true, filter: (from) => !path.basename(from).startsWith('.') });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(into, 'node_modules'));
  return into;
}

describe(`the packed ${pkg.name}, installed with npm install --omit=dev --omit=optional`, () => {
  let work: string;
  let project: string;

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-installed-'));
    const clone = cloneWithoutBuild(fs.mkdtempSync(path.join(work, 'clone-')));
    succeeded(await runProgram('npm', ['pack', '--pack-destination', work], { cwd: clone, timeoutMs: scaled(120_000) }), 'npm pack');
    const tarball = path.join(work, `${pkg.name}-${pkg.version}.tgz`);

    project = path.join(work, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const install = ['install', '--omit=dev', '--omit=optional', '--no-audit', '--no-fund', tarball];
    succeeded(await runProgram('npm', install, { cwd: project, timeoutMs: scaled(300_000) }), `npm ${install.join(' ')}`);
  }, scaled(450_000));
  afterEach(() => killChildren());
  afterAll(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('holds the built JavaScript, and `npx decide` runs from the project', async () => {
    const installed = path.join(project, 'node_modules', pkg.name);
    for (const file of ['dist/cli/main.js', 'dist/client/index.js', 'dist/client/index.d.ts'])
      expect(fs.existsSync(path.join(installed, file)), file).toBe(true);
    expect(fs.existsSync(path.join(project, 'node_modules', 'node-llama-cpp'))).toBe(false);

    const version = succeeded(await runProgram('npx', ['decide', '--version'], { cwd: project }), 'npx decide --version');
    expect(version.stdout.trim()).toBe(pkg.version);
    const help = succeeded(await runProgram('npx', ['decide', '--help'], { cwd: project }), 'npx decide --help');
    expect(help.stdout).toMatch(/^Usage: decide /);
    expect(help.stdout).toMatch(/^\s+serve\b/m);
  });

  describe('decide serve, from the installed bin, on a loopback engine', () => {
    let fake: OpenAIFake;
    beforeAll(async () => {
      fake = await startOpenAIFake();
    });
    afterAll(() => fake?.close());

    it('starts on an ephemeral port, is live and ready, and the client imported by the package name talks to it', async () => {
      const bin = path.join(project, 'node_modules', '.bin', 'decide');
      const db = path.join(project, 'decide.db');
      const env = openaiEnv(fake.url, 'sk-engine-for-the-installed-package');
      const server = await startServe(['--db', db], env, scaled(20_000), { bin, cwd: project });

      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      // Ready: the ledger opened through better-sqlite3's native binding, and the engine answered.
      const ready = await fetch(`${server.url}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ready', checks: { ledger: 'ok', engine: 'ok' } });

      const made = succeeded(
        await runProgram(process.execPath, [bin, 'key', 'create', '--json', '--db', db], { cwd: project }),
        'decide key create',
      );
      const { key } = JSON.parse(made.stdout) as { key: string };
      const source = `
        import { DecideClient } from '${pkg.name}';
        const usage = await new DecideClient({ url: process.env.URL, apiKey: process.env.KEY }).usage();
        console.log(JSON.stringify(usage));`;
      const used = succeeded(
        await runProgram(process.execPath, ['--input-type=module', '-e', source], { cwd: project, env: { URL: server.url, KEY: key } }),
        'the client',
      );
      expect(JSON.parse(used.stdout)).toMatchObject({ freeLimit: 20, freeRemaining: 20, passCredits: 0 });
      await server.stop();
    });
  });

  it('a TypeScript file importing the typed client by the package name compiles under strict, its types narrowing', async () => {
    // A Node project's settings, its library declarations checked too. The client's
    // types reach undici's (the `dispatcher` option), which need Node's: @types/node, as
    // a Node project has it (this clone's copy, rather than one more install).
    const compilerOptions = {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      types: ['node'],
      typeRoots: [path.join(ROOT, 'node_modules', '@types')],
    };
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }));
    fs.writeFileSync(
      path.join(project, 'consumer.ts'),
      `import { DecideClient, DecideError, type DecisionResponse } from '${pkg.name}';
export const client = new DecideClient({ url: 'http://127.0.0.1:8787', apiKey: 'dcd_api_…' });
export function selected(answer: DecisionResponse): string | undefined {
  if (answer.mode === 'choice') return answer.result.selected;
  // @ts-expect-error only a choice has a selected option
  return answer.result.selected;
}
export const failed = (error: unknown): number | undefined => (error instanceof DecideError ? error.status : undefined);
// @ts-expect-error the mode is one of three
export const wrong = () => client.decide({ mode: 'maybe', question: 'Ship?', context: 'All tests pass.' });
`,
    );
    const checked = await runProgram(process.execPath, [TSC, '-p', project], { cwd: project });
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
  });
});

describe("a clone's npm install without its dev dependencies", () => {
  it('prepare keeps going without the compiler, saying why dist/ is not built', async () => {
    const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-omit-dev-'));
    onTestFinished(() => fs.rmSync(clone, { recursive: true, force: true }));
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(clone, 'package.json'));
    fs.cpSync(path.join(ROOT, 'scripts'), path.join(clone, 'scripts'), { recursive: true });
    const prepared = await runProgram('npm', ['run', 'prepare'], { cwd: clone });
    expect(prepared.code, prepared.stderr).toBe(0);
    expect(prepared.stderr).toContain('TypeScript is not installed');
    expect(prepared.stderr).toContain('dist/ is not built');
    expect(fs.existsSync(path.join(clone, 'dist'))).toBe(false);
  });
});
