import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { eventually, scaled } from './time.js';

/**
 * The CLI as a user runs it: `node bin/decide.js …` in a child process, which loads the
 * compiled dist/ (build first: `npm run build`, or `npm test`). Every child started here
 * is remembered, so `killChildren()` in afterEach ends them even when a test failed
 * (children started elsewhere join them through `track`).
 */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin', 'decide.js');
/** The version package.json states: what `decide --version` and the tool server must say. */
export const PACKAGE_VERSION: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

const live = new Set<ChildProcess>();

/** Remembers `child` until it exits, so `killChildren()` ends it if it is still running. */
export function track<T extends ChildProcess>(child: T): T {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Kills (SIGKILL) every child still running and waits until they are gone. */
export async function killChildren(): Promise<void> {
  await Promise.all(
    [...live].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
  live.clear();
}

/** Throws a readable error when dist/ has not been built. */
export function assertBuilt(): void {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/cli/main.js is missing: run `npm run build` before the CLI tests');
  }
}

export interface TempDb {
  dir: string;
  db: string;
  remove(): void;
}

/** A temp folder holding `ledger.db` (the name test/ledger/helpers.ts `audit` expects). */
export function tempDb(): TempDb {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-cli-'));
  return { dir, db: path.join(dir, 'ledger.db'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const TEST_CACHE = path.join(os.tmpdir(), `decide-test-cache-${process.pid}`);

/** The test runner's environment without any DECIDE_* / OPENAI_* variable, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(DECIDE_|OPENAI_|ANTHROPIC_)/.test(name)) env[name] = value;
  }
  // With no engine configured, serve fetches the default model: never from the
  // internet in a test, and never into the developer's own cache.
  return { ...env, XDG_CACHE_HOME: TEST_CACHE, DECIDE_DEFAULT_MODEL_URL: 'http://127.0.0.1:9/unreachable.gguf', ...extra };
}

/** The openai engine pointed at a fake. */
export function openaiEnv(fakeUrl: string, secret: string, extra: Record<string, string> = {}): Record<string, string> {
  return { DECIDE_ENGINE: 'openai', OPENAI_BASE_URL: fakeUrl, OPENAI_API_KEY: secret, DECIDE_MODEL: 'm', ...extra };
}

/** How the CLI is started: node on bin/decide.js, or `npx decide` as a user in this folder types it (npm, then a shell, then decide). */
export type Launcher = 'node' | 'npx';

/** Which `decide` a child runs, from where and how: this clone's by default, or an installed package's bin. */
export interface CliFrom {
  bin?: string;
  cwd?: string;
  launcher?: Launcher;
}

function spawnCli(args: string[], env: Record<string, string>, { bin = BIN, cwd = ROOT, launcher = 'node' }: CliFrom = {}): ChildProcess {
  const [command, ...first] = launcher === 'npx' ? ['npx', 'decide'] : [process.execPath, bin];
  return track(spawn(command, [...first, ...args], { cwd, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** Runs any program to its end in `cwd` with the clean environment plus `env` (killed after `timeoutMs`, a scaled deadline). */
export function runProgram(
  command: string,
  args: string[],
  { cwd = ROOT, env = {}, timeoutMs = scaled(60_000) }: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliResult> {
  const child = track(spawn(command, args, { cwd, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }));
  return collectOutput(child, `${command} ${args.join(' ')}`, timeoutMs);
}

export interface ServeFixture {
  /** The OpenAI fake, one for the describe block, reset (default answers, nothing recorded) after each test. */
  readonly fake: OpenAIFake;
  /** This test's ledger folder: made on first use, removed after the test. */
  readonly tmp: TempDb;
  /** One more ledger folder, removed after the test. */
  tempDb(): TempDb;
}

/**
 * The hooks of a `decide serve` test file, registered in the calling describe block:
 * beforeAll checks dist/ is built and starts the OpenAI fake, afterAll closes it, and
 * afterEach kills the children, resets the fake and removes the test's ledger folders.
 */
export function useServeFixture(): ServeFixture {
  let fake: OpenAIFake | undefined;
  let tmp: TempDb | undefined;
  const made: TempDb[] = [];
  const fresh = () => {
    const folder = tempDb();
    made.push(folder);
    return folder;
  };
  beforeAll(async () => {
    assertBuilt();
    fake = await startOpenAIFake();
  });
  afterAll(() => fake?.close());
  afterEach(async () => {
    await killChildren();
    fake?.reset();
    tmp = undefined;
    for (const folder of made.splice(0)) folder.remove();
  });
  return {
    get fake() {
      if (!fake) throw new Error('the OpenAI fake is not started yet: use it inside a test');
      return fake;
    },
    get tmp() {
      return (tmp ??= fresh());
    },
    tempDb: fresh,
  };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs one command to its end (killed after `timeoutMs`, a scaled deadline). */
export function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = scaled(8_000)): Promise<CliResult> {
  return collectOutput(spawnCli(args, env), `decide ${args.join(' ')}`, timeoutMs);
}

/** Runs one command to its end from the folder `cwd`, as an operator in another folder would. */
export function runCliIn(cwd: string, args: string[], env: Record<string, string> = {}, timeoutMs = scaled(8_000)): Promise<CliResult> {
  return collectOutput(spawnCli(args, env, { cwd }), `decide ${args.join(' ')} (in ${cwd})`, timeoutMs);
}

/** Collects what `child` writes until it closes; kills it and rejects, naming `what`, after `timeoutMs`. */
export function collectOutput(child: ChildProcess, what: string, timeoutMs: number): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Runs a `--json` command that must succeed, and parses its one line of output. */
export async function runJson<T = any>(args: string[], env: Record<string, string> = {}): Promise<T> {
  const result = await runCli([...args, '--json'], env);
  if (result.code !== 0) throw new Error(`decide ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export interface Serving {
  url: string;
  port: number;
  child: ChildProcess;
  /** Complete lines so far. */
  stdout: string[];
  stderr: string[];
  /** Everything the child wrote, raw. */
  output(): { stdout: string; stderr: string };
  /** Resolves with how the child ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Waits for a stderr line matching `pattern` (for up to a scaled 5 s by default). */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const LISTENING = /^decide listening on (http:\/\/\S+)$/;

/**
 * Starts `decide serve --port 0 …` and resolves once it prints where it listens (within
 * `timeoutMs`, a scaled deadline); `from` names another installation's bin to run, the
 * folder to run it in, or `npx` to start it as a user in this folder would. `child` is
 * the launcher's process: decide itself under 'node', npm under 'npx'.
 */
export function startServe(args: string[], env: Record<string, string>, timeoutMs = scaled(8_000), from: CliFrom = {}): Promise<Serving> {
  const child = spawnCli(['serve', '--port', '0', ...args], env, from);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const raw = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  const lines = (name: 'stdout' | 'stderr', into: string[]) => {
    let partial = '';
    child[name]!.setEncoding('utf8').on('data', (d: string) => {
      raw[name] += d;
      partial += d;
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      into.push(...parts);
      for (const wake of [...waiters]) wake();
    });
  };
  lines('stdout', stdout);
  lines('stderr', stderr);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => {
      resolve({ code, signal });
      for (const wake of [...waiters]) wake();
    }),
  );

  /** Resolves with the first value `probe` finds, re-checked whenever output arrives. */
  const until = <T>(probe: () => T | undefined, what: string, ms: number) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        let found: T | undefined;
        try {
          found = probe();
        } catch (error) {
          return finish(() => reject(error));
        }
        if (found !== undefined) return finish(() => resolve(found));
        if (child.exitCode !== null || child.signalCode !== null) {
          finish(() =>
            reject(new Error(`decide serve ended (${child.exitCode ?? child.signalCode}) before ${what}\nstderr: ${raw.stderr}`)),
          );
        }
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`no ${what} within ${ms} ms\nstdout: ${raw.stdout}\nstderr: ${raw.stderr}`))),
        ms,
      );
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        settle();
      };
      waiters.add(check);
      check();
    });

  return until(
    () => {
      const match = stdout.length > 0 ? LISTENING.exec(stdout[0]) : null;
      if (stdout.length > 0 && !match) throw new Error(`first stdout line is not the listening line: ${stdout[0]}`);
      return match?.[1];
    },
    'listening line',
    timeoutMs,
  ).then((url) => ({
    url,
    port: Number(new URL(url).port),
    child,
    stdout,
    stderr,
    output: () => ({ ...raw }),
    exited,
    waitForStderr: (pattern, ms = scaled(5_000)) => until(() => stderr.find((line) => pattern.test(line)), `stderr line ${pattern}`, ms),
    stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  }));
}

/** Polls `probe` until it returns true (every 20 ms, up to `timeoutMs`, a scaled deadline). */
export function waitUntil(probe: () => boolean, what: string, timeoutMs = scaled(5_000)): Promise<void> {
  return eventually(probe, what, { timeoutMs });
}
