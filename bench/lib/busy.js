// Busy loops: processes that keep a core each fully busy, standing in for the other
// tenants of a shared machine. llama.cpp's threads wait for one another at every
// step, so one thread that loses its core to a neighbour holds back all the others;
// the local rows measure that beside these loops.
import { spawn } from 'node:child_process';
import { stop } from '../children.js';

const SPIN = 'for (;;) {}';

/** `n` busy loops; `pids` for the CPU accounting, `stop()` to end them. */
export function startBusyLoops(n) {
  const children = Array.from({ length: n }, () => spawn(process.execPath, ['-e', SPIN], { stdio: 'ignore' }));
  const killNow = () => children.forEach((c) => c.kill('SIGKILL'));
  process.once('exit', killNow);
  return {
    pids: Object.fromEntries(children.map((c, i) => [`busy${i}`, c.pid])),
    async stop() {
      process.off('exit', killNow);
      await Promise.all(children.map((c) => stop(c, 1_000)));
    },
  };
}
