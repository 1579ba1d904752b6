import type { Env } from '../config/variables.js';

/** How often the parent is looked at: a stop comes this late at most, and the look is one system call. */
const EVERY_MS = 500;

/**
 * Under npm (`npx decide serve`, an npm script), decide is the child of a shell npm
 * started, and a SIGTERM or SIGINT sent to npm alone (by a supervisor, a test
 * harness, `kill <npm's pid>`) is passed to that shell only: the shell dies, npm
 * exits, and decide would go on serving, orphaned, its port still bound. So when npm
 * started it (npm sets `npm_execpath` for everything it runs), decide watches its
 * parent and, once it is gone, sends itself the SIGTERM npm meant to pass on: the
 * usual graceful stop, or the default exit while still starting.
 *
 * Not otherwise: `nohup decide serve &` from a shell must outlive that shell. Ctrl-C
 * in a terminal reaches decide itself (the whole foreground group gets it).
 */
export function stopWithNpm(warn: (line: string) => void, env: Env = process.env): void {
  if (!env.npm_execpath) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    warn(`the process npm ran decide under (pid ${parent}) has ended: stopping as on SIGTERM`);
    process.kill(process.pid, 'SIGTERM');
  }, EVERY_MS);
  timer.unref(); // never what keeps the process alive
}
