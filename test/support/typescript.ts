import { execFile } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './cli.js';
import { scaled } from './time.js';

/** The project's own command-line tools (tsc, openapi-typescript). */
export const BIN = path.join(ROOT, 'node_modules', '.bin');

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout then stderr, as one text. */
  output: string;
}

/** Runs `file` with `args` in `cwd`: its exit code and what it wrote. */
export function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, timeout: scaled(120_000) }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr, output: stdout + stderr }),
    );
  });
}

/** A strict compile of `file` in `dir` with the project's TypeScript and Node types, into `dir/out`. */
export const compileStrict = (dir: string, file: string): Promise<Ran> =>
  run(
    path.join(BIN, 'tsc'),
    [
      '--strict',
      '--noUncheckedIndexedAccess',
      '--module',
      'nodenext',
      '--target',
      'es2022',
      '--typeRoots',
      path.join(ROOT, 'node_modules', '@types'),
      '--types',
      'node',
      '--outDir',
      'out',
      file,
    ],
    dir,
  );
