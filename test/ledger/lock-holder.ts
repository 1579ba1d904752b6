import { spawn } from 'node:child_process';
import { ROOT, track } from '../support/cli.js';

/**
 * Another process holding the SQLite file's write lock (`BEGIN EXCLUSIVE`), as an
 * operator's sqlite3 shell or a backup script would, until told to let go.
 */
export interface LockHolder {
  /** Commits and waits until the process has ended. */
  release(): Promise<void>;
  /** True until `release` has been asked for. */
  readonly holding: boolean;
}

const SCRIPT = `
import Database from 'better-sqlite3';
const db = new Database(process.argv[1]);
db.exec('BEGIN EXCLUSIVE');
process.stdout.write('locked\\n');
process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });
`;

export async function holdLock(file: string): Promise<LockHolder> {
  const child = track(
    spawn(process.execPath, ['--input-type=module', '-e', SCRIPT, file], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder ended (${code}) before taking the lock`)));
  });
  let holding = true;
  return {
    get holding() {
      return holding;
    },
    async release() {
      holding = false;
      child.stdin!.write('go\n');
      await exited;
    },
  };
}
