// `decide serve` processes under chaos: each keeps its port across a kill -9 and a
// restart, so clients find it again; every exit it did not ask for is counted (and the
// server restarted, so the run can finish and the books still be checked).
import { spawn } from 'node:child_process';
import { freePort } from '../children.js';

const LISTENING = /^decide listening on (http:\/\/\S+)$/m;

/** The caller's environment without any decide or provider setting, plus `extra`. */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(DECIDE_|OPENAI_|ANTHROPIC_)/.test(name)) env[name] = value;
  }
  return { ...env, ...extra };
}

export class ServeProcess {
  /**
   * @param {object} o
   * @param {string} o.name      for messages
   * @param {string} o.decide    path of bin/decide.js
   * @param {string} o.root      the project's root (cwd)
   * @param {string} o.location  --db
   * @param {Record<string,string>} o.env  what `decide serve` is configured with
   */
  constructor({ name, decide, root, location, env }) {
    Object.assign(this, { name, decide, root, location, env });
    this.port = 0;
    this.url = '';
    this.child = null;
    /** [from, to] performance.now() intervals during which this server was down on purpose. */
    this.down = [];
    /** Exits nobody asked for: { at, code, signal, stderr tail }. */
    this.crashes = [];
    /** Intervals during which it was down after a crash. */
    this.crashDown = [];
    this.starts = 0;
    /** Reservations released at start-up (SQLite: those of the killed process). */
    this.releasedAtStart = 0;
    /** stdout lines logged as errors (500s), and stderr lines saying a decision was served free. */
    this.errorLines = [];
    this.freeServes = [];
    this.expectingExit = false;
  }

  async start(timeoutMs = 30_000) {
    if (!this.port) this.port = await freePort();
    const child = spawn(process.execPath, [this.decide, 'serve', '--port', String(this.port), '--db', this.location], {
      cwd: this.root,
      env: cleanEnv(this.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.starts++;
    this.expectingExit = false;
    let stderr = '';
    let stdoutHead = '';
    let listening = false;
    const lines = (stream, onLine) => {
      let partial = '';
      stream.setEncoding('utf8').on('data', (chunk) => {
        partial += chunk;
        const parts = partial.split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) onLine(line);
      });
    };
    lines(child.stderr, (line) => {
      if (stderr.length < 20_000) stderr += line + '\n';
      const released = /released (\d+) interrupted reservation/.exec(line);
      if (released) this.releasedAtStart += Number(released[1]);
      if (/without a charge/.test(line)) this.freeServes.push(line);
    });
    const ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: not listening within ${timeoutMs} ms\n${stderr}`)), timeoutMs);
      lines(child.stdout, (line) => {
        if (!this.url || stdoutHead === '') {
          stdoutHead += line;
          const match = LISTENING.exec(line);
          if (match) {
            clearTimeout(timer);
            listening = true;
            this.url = match[1];
            resolve();
          }
        }
        if (line.startsWith('{"level":"error"')) this.errorLines.push(line);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited before listening (code ${code}, signal ${signal})\n${stderr}`));
      });
    });
    child.once('exit', (code, signal) => {
      // Not listening yet: `ready` rejects and the caller hears of it.
      if (this.expectingExit || this.child !== child || !listening) return;
      const at = performance.now();
      this.crashes.push({ code, signal, stderr: stderr.slice(-4000) });
      // Bring it back, so the run goes on and the books can still be checked.
      this.url = '';
      const interval = [at, Infinity];
      this.crashDown.push(interval);
      setTimeout(() => {
        this.start()
          .then(() => (interval[1] = performance.now()))
          .catch((error) => (this.restartError = error));
      }, 100);
    });
    await ready;
    return this;
  }

  /** kill -9, wait for the exit, wait `pauseMs`, start again on the same port. */
  async killAndRestart(pauseMs) {
    const interval = [performance.now(), Infinity];
    this.down.push(interval);
    await this.kill9();
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    await this.start();
    interval[1] = performance.now();
  }

  kill9() {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    this.expectingExit = true;
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  /** SIGTERM (a graceful stop), SIGKILL after `graceMs`; resolves with how it ended. */
  stop(graceMs = 10_000) {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      return Promise.resolve({ code: child?.exitCode ?? null, signal: child?.signalCode ?? null });
    }
    this.expectingExit = true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal });
      });
      child.kill('SIGTERM');
    });
  }

  /** Was this server down (killed on purpose, or crashed) at some point of [from, to]? */
  wasDown(from, to, which = 'killed') {
    const list = which === 'killed' ? this.down : this.crashDown;
    return list.some(([a, b]) => a <= to && from <= b);
  }
}
