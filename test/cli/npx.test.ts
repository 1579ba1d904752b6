import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openaiEnv, startServe, useServeFixture, waitUntil } from '../support/cli.js';
import { refusedWithin } from '../support/ports.js';
import { scaled } from '../support/time.js';

/** The processes below `pid`, read from /proc: npm's shell and decide under `npx`. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const parent = Number(state(Number(entry))?.ppid);
    if (Number.isFinite(parent)) parents.set(parent, [...(parents.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length > 0; ) {
    const children = parents.get(queue.shift()!) ?? [];
    found.push(...children);
    queue.push(...children);
  }
  return found;
}

/** A process's state letter and parent, or undefined once it is gone. */
function state(pid: number): { letter: string; ppid: string } | undefined {
  try {
    // "pid (command) state ppid …": the command may hold spaces, so read after its last ')'.
    const [letter, ppid] = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop()!.trim().split(' ');
    return { letter, ppid };
  } catch {
    return undefined;
  }
}

/** Exited: no longer there, or a zombie nobody has reaped yet. */
const gone = (pid: number) => ['Z', 'X', undefined].includes(state(pid)?.letter);

/**
 * `npx decide serve` under a supervisor that signals npx's process alone: npm passes the
 * signal to the shell it runs decide in, not to decide, and used to exit leaving decide
 * serving, its port bound. (Ctrl-C in a terminal reaches every process of the group.)
 */
describe.skipIf(process.platform !== 'linux')('npx decide serve', () => {
  const serve = useServeFixture();

  it('stops when npx is sent SIGTERM: the port closes and no process of it is left', { timeout: scaled(60_000) }, async () => {
    const { fake, tmp } = serve;
    const served = await startServe(['--db', tmp.db], openaiEnv(fake.url, 'sk-npx'), scaled(30_000), { launcher: 'npx' });
    const below = descendants(served.child.pid!);
    expect(below.length).toBeGreaterThan(0);

    try {
      served.child.kill('SIGTERM');
      // npm exits first; decide, which holds the same output, goes on writing until it
      // has stopped: 'close' comes once both are done, so its lines are read after it.
      await served.exited;
      expect(served.stderr).toContainEqual(
        expect.stringMatching(/^decide: the process npm ran decide under \(pid \d+\) has ended: stopping as on SIGTERM$/),
      );
      expect(served.stderr).toContain('decide: SIGTERM, finishing in-flight requests');
      expect(await refusedWithin(served.port, scaled(5_000))).toBe('ECONNREFUSED');
      await waitUntil(() => [served.child.pid!, ...below].every(gone), 'every process of npx decide serve to end', scaled(10_000));
    } finally {
      // The fixture ends npx only: an orphan left by a failure here is ended by its pid.
      for (const pid of below.filter((p) => !gone(p))) process.kill(pid, 'SIGKILL');
    }
  });
});
