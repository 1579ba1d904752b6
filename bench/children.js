// Child processes of the bench: spawned, read until their "listening on" line, and
// always stopped again, on success, error, SIGINT/SIGTERM or plain process exit.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const live = new Set();

/**
 * Spawns `command args`, waits for the first stdout line matching `listening on <url>`,
 * then keeps draining stdout (decide's access log) without looking at it.
 * With `stdoutToNull: { url, readyOn }` stdout goes to /dev/null instead, and the child is
 * ready once a stderr line matches `readyOn` (the caller chose the port, so knows `url`).
 */
export function startServer(name, command, args, { env, ipc = false, timeoutMs = 15_000, cwd, stdoutToNull } = {}) {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', stdoutToNull ? 'ignore' : 'pipe', 'pipe', ...(ipc ? ['ipc'] : [])],
  });
  child.benchName = name;
  live.add(child);
  child.once('exit', () => live.delete(child));

  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    if (stderr.length < 20_000) stderr += chunk;
  });
  child.stderrText = () => stderr;

  if (stdoutToNull) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`${name}: not ready within ${timeoutMs} ms`)), timeoutMs);
      const onData = () => {
        if (stdoutToNull.readyOn.test(stderr)) done();
      };
      const onExit = (code, signal) => done(new Error(`${name} exited early (code ${code}, signal ${signal})`));
      function done(error) {
        clearTimeout(timer);
        child.stderr.off('data', onData);
        child.off('exit', onExit);
        if (error) {
          stop(child);
          return reject(new Error(`${error.message}\n--- ${name} stderr ---\n${stderr}`));
        }
        child.on('exit', (code, signal) => {
          if (!child.benchStopping)
            process.stderr.write(`bench: ${name} exited unexpectedly (code ${code}, signal ${signal})\n${stderr}\n`);
        });
        resolve({ child, url: stdoutToNull.url });
      }
      child.stderr.on('data', onData);
      child.once('exit', onExit);
      child.once('error', (error) => done(error));
    });
  }

  return new Promise((resolve, reject) => {
    let head = '';
    const timer = setTimeout(() => fail(new Error(`${name}: no "listening on" line within ${timeoutMs} ms`)), timeoutMs);
    function fail(error) {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      stop(child);
      reject(new Error(`${error.message}\n--- ${name} stderr ---\n${stderr}`));
    }
    function onExit(code, signal) {
      fail(new Error(`${name} exited early (code ${code}, signal ${signal})`));
    }
    function onData(chunk) {
      head += chunk.toString('utf8');
      const newline = head.indexOf('\n');
      if (newline < 0) return;
      const first = head.slice(0, newline);
      const match = /listening on (http:\/\/\S+)/.exec(first);
      if (!match) return fail(new Error(`${name}: unexpected first line: ${first}`));
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      child.stdout.resume(); // drain the rest (the access log) unread
      child.on('exit', (code, signal) => {
        if (!child.benchStopping) process.stderr.write(`bench: ${name} exited unexpectedly (code ${code}, signal ${signal})\n${stderr}\n`);
      });
      resolve({ child, url: match[1] });
    }
    child.stdout.on('data', onData);
    child.once('exit', onExit);
    child.once('error', (error) => fail(error));
  });
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
export function stop(child, graceMs = 5_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.benchStopping = true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export function stopAll(graceMs) {
  return Promise.all([...live].map((child) => stop(child, graceMs)));
}

/** Last resort in a synchronous 'exit' handler: no waiting possible, so SIGKILL. */
export function killAllNow() {
  for (const child of live) {
    child.benchStopping = true;
    try {
      child.kill('SIGKILL');
    } catch {}
  }
}

/** utime + stime of a process in milliseconds (Linux /proc), or null elsewhere. */
export function cpuMsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may hold spaces: split after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = 100; // sysconf(_SC_CLK_TCK) on every Linux Node supports

/** Resident memory of a process in MB, now and at its peak (Linux /proc), or null elsewhere. */
export function memoryMbOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/** Machine-wide CPU milliseconds from /proc/stat (summed over cores), or null elsewhere. */
export function machineCpuMs() {
  try {
    const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = f.map(Number);
    const ms = (ticks) => (ticks * 1000) / CLOCK_TICKS;
    return { busy: ms(user + nice + system + irq + softirq), idle: ms(idle + iowait), steal: ms(steal) };
  } catch {
    return null;
  }
}

/** A port that was free a moment ago (for a child that cannot report its own). */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
