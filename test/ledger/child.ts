import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { ChildConfig } from './fixtures/ledger-child.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRY = 'test/ledger/fixtures/ledger-child.ts';

/** Value imports (not `import type`) of relative modules, as written: `./x.js`. */
const RELATIVE_IMPORT = /^\s*(?:import|export)\s+(?!type\b)[^;]*?from\s+'(\.{1,2}\/[^']+)'/gm;

/**
 * Node 20 cannot run TypeScript, and a child process is the honest way to have a
 * second SQLite connection in another process. So the child and the modules it
 * imports are transpiled (types stripped, nothing else) into `out`, mirroring the
 * project's layout, with `node_modules` linked so `better-sqlite3` resolves.
 * Returns the path of the runnable entry.
 */
export function buildChild(out: string): string {
  const pending = [ENTRY];
  const done = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (done.has(file)) continue;
    done.add(file);
    const source = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const match of source.matchAll(RELATIVE_IMPORT)) {
      pending.push(path.posix.join(path.posix.dirname(file), match[1].replace(/\.js$/, '.ts')));
    }
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: file,
    });
    const target = path.join(out, file.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, outputText);
  }
  fs.writeFileSync(path.join(out, 'package.json'), '{"type":"module"}\n');
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(out, 'node_modules'), 'dir');
  return path.join(out, ENTRY.replace(/\.ts$/, '.js'));
}

export interface RunningChild {
  process: ChildProcessWithoutNullStreams;
  /** Resolves once the child has opened the store and waits for `go`. */
  ready: Promise<void>;
  go(): void;
  /** The child's JSON report (its last stdout line) and how it ended. */
  finished: Promise<{ report: unknown; code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

export function startChild(entry: string, config: ChildConfig): RunningChild {
  const child = spawn(process.execPath, [entry, JSON.stringify(config)], { stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  let markReady: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
    if (stdout.startsWith('ready\n')) markReady();
  });
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const finished = new Promise<{ report: unknown; code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => {
        const lines = stdout.trim().split('\n');
        const last = lines[lines.length - 1];
        let report: unknown = null;
        try {
          report = last && last !== 'ready' ? JSON.parse(last) : null;
        } catch {
          report = last;
        }
        if (code !== 0 && signal === null) reject(new Error(`child exited ${code}: ${stderr}`));
        else resolve({ report, code, signal, stderr });
      });
    },
  );
  // A child that fails before `ready` must not leave the test waiting forever.
  finished.catch(() => markReady());
  return { process: child, ready, go: () => child.stdin.end('go\n'), finished };
}
