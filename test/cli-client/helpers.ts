import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { assertBuilt, BIN, cleanEnv, collectOutput, killChildren, ROOT, track } from '../support/cli.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';

/**
 * The client commands as a user runs them: `node bin/decide.js …` as a child process
 * (stdin a pipe we may write to), or on a pseudo-terminal through util-linux `script`.
 * Every child is tracked by test/support/cli.ts, so `killChildren()` ends it.
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Kills every child still running (afterEach), so a failed test leaves none behind. */
export const killAll = killChildren;

/** The runner's environment without DECIDE_*, OPENAI_* or anything that changes how output looks. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = cleanEnv();
  for (const name of ['NO_COLOR', 'FORCE_COLOR', 'CI', 'TERM', 'COLUMNS', 'LINES']) delete env[name];
  return { ...env, ...extra };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string>;
  /** Written to stdin, which is then closed (closed at once when absent). */
  input?: string;
  /** Killed and failed after this long; default a scaled 15 s. */
  timeoutMs?: number;
  /** Arguments for node itself, before the script. */
  nodeArgs?: string[];
}

async function collect(child: ChildProcess, what: string, timeoutMs: number): Promise<Run> {
  const { code, stdout, stderr } = await collectOutput(track(child), what, timeoutMs);
  return { code, stdout, stderr };
}

/** Runs `decide …` with stdin, stdout and stderr as pipes (so: not a terminal). */
export function decide(args: string[], options: RunOptions = {}): Promise<Run> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    cwd: ROOT,
    env: childEnv(options.env ?? {}),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin!.end(options.input ?? '');
  return collect(child, `decide ${args.join(' ')}`, options.timeoutMs ?? scaled(15_000));
}

const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

export interface PtyOptions {
  env?: Record<string, string>;
  /** Typed once `waitFor` shows up in the output (the terminal echoes it). */
  answer?: { waitFor: string; text: string };
  /** Called with everything written so far, each time more arrives. */
  watch?: (output: string) => void;
  /** Called at once with a function that types into the terminal (`\x03` is Ctrl-C), for the test to use when it wants. */
  keyboard?: (type: (text: string) => void) => void;
  /** Killed and failed after this long; default a scaled 20 s. */
  timeoutMs?: number;
  /** The terminal's width; default 120. */
  columns?: number;
  /** The terminal's height; default 50. */
  rows?: number;
  /** A line the shell prints before the command starts: earlier output that must stay on the screen. */
  before?: string;
}

/**
 * Runs `decide …` on a pseudo-terminal of 50 rows, 120 columns unless told (util-linux `script`): stdin, stdout
 * and stderr are all the terminal, and everything written comes back as one stream,
 * escape codes and `\r\n` included.
 */
export function decideInPty(args: string[], options: PtyOptions = {}): Promise<Run> {
  const before = options.before === undefined ? '' : `printf '%s\\n' ${shellQuote(options.before)}; `;
  const size = `stty rows ${options.rows ?? 50} cols ${options.columns ?? 120}; `;
  const command = `${size}${before}exec ${[process.execPath, BIN, ...args].map(shellQuote).join(' ')}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: ROOT,
    env: childEnv({ TERM: 'xterm-256color', ...options.env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const { answer, watch, keyboard } = options;
  // Keys typed after the command ended go nowhere, as on a real terminal.
  child.stdin!.on('error', () => {});
  keyboard?.((text) => child.stdin!.writable && child.stdin!.write(text));
  if (watch) {
    let all = '';
    child.stdout!.on('data', (d: Buffer) => watch((all += d.toString('utf8'))));
  }
  if (answer) {
    let seen = '';
    const onData = (d: Buffer) => {
      seen += d.toString('utf8');
      if (seen.includes(answer.waitFor)) {
        child.stdout!.off('data', onData);
        child.stdin!.write(answer.text);
      }
    };
    child.stdout!.on('data', onData);
  }
  return collect(child, `decide ${args.join(' ')} (on a pty)`, options.timeoutMs ?? scaled(20_000));
}

/** Escape sequences (CSI, OSC and the two-byte ones). */
export const ESCAPE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[@-Z\\-_])/g;
/** SGR sequences that set a colour or a style (not the reset ones). */
export const STYLE = /\x1b\[(?:[0-9;]*;)?(?:1|2|3[0-7]|38|9[0-7])(?:;[0-9;]*)?m/;

/** What a person sees, roughly: no escape codes, no carriage returns. */
export const plain = (text: string): string => text.replace(ESCAPE, '').replace(/\r/g, '');

export interface TempFolder {
  dir: string;
  /** Writes `text` to `name` in the folder (mode 0600) and returns the file's path. */
  write(name: string, text: string): string;
  remove(): void;
}

/** A temp folder (removed by the returned function), for key files and context files. */
export function tempFolder(): TempFolder {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-cli-client-'));
  return {
    dir,
    write(name, text) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text, { mode: 0o600 });
      return file;
    },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** node arguments that record every package the CLI loads into `file`. */
export function traceArgs(): string[] {
  return ['--import', path.join(HERE, 'trace-imports.mjs')];
}

export function packagesLoaded(file: string): Set<string> {
  return new Set(fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
}

export interface ClientFixture {
  /** The service (OpenAI fake engine), one for the describe block. */
  readonly svc: Running;
  /** A temp folder for the describe block, removed after its last test. */
  readonly tmp: TempFolder;
}

/**
 * The hooks of a client-command test file, registered in the calling describe block:
 * beforeAll checks dist/ is built, starts the service and makes a temp folder, afterAll
 * removes the folder and closes the service, afterEach kills the children and resets
 * the service's engine fake (default answers, nothing recorded).
 */
export function useClientFixture(): ClientFixture {
  let svc: Running | undefined;
  let tmp: TempFolder | undefined;
  beforeAll(async () => {
    assertBuilt();
    svc = await startWithOpenAI();
    tmp = tempFolder();
  });
  afterAll(async () => {
    tmp?.remove();
    await svc?.close();
  });
  afterEach(async () => {
    await killChildren();
    svc?.fake.reset();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the client fixture is not started yet: use it inside a test');
    return value;
  };
  return {
    get svc() {
      return started(svc);
    },
    get tmp() {
      return started(tmp);
    },
  };
}
