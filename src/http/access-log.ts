import type { MiddlewareHandler } from 'hono';
import { performance } from 'node:perf_hooks';
import type { AppEnv } from './env.js';

export type LogLine = (line: string) => void;

/** One JSON line a request: never a key or a body, only the key's hint, and the request's id (request-id.ts). */
export function accessLog(write: LogLine): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const startedAt = performance.now();
    c.set('startedAt', startedAt);
    await next();
    write(
      JSON.stringify({
        time: new Date().toISOString(),
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - startedAt) * 10) / 10,
        key: c.get('caller')?.keyHint ?? null,
        request: c.get('requestId') ?? null,
      }),
    );
  };
}

/** Past this many buffered characters the lines go out at once, whatever the turn. */
const FLUSH_AT = 64 * 1024;

/**
 * Lines to `write` in batches: every line logged in one turn of the event loop goes out
 * in one write when the turn ends (setImmediate), or at once past 64 KiB. A write per
 * line is a system call per request (synchronous, for stdout on a pipe or a file), which
 * cost ~8 % of a decision's CPU; the lines and their order are the same. `flush` writes
 * what is buffered, synchronously.
 */
export function batchedLog(write: (chunk: string) => void): LogLine & { flush(): void } {
  let buffered = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (buffered === '') return;
    const chunk = buffered;
    buffered = '';
    write(chunk);
  };
  const log = (line: string) => {
    buffered += line + '\n';
    if (buffered.length >= FLUSH_AT) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return Object.assign(log, { flush });
}

let stdout: (LogLine & { flush(): void }) | undefined;

/**
 * The process's log on stdout (`decide serve`'s access and error lines), batched. What
 * is still buffered is written on process exit (stdout writes are synchronous there on
 * Linux, for files, pipes and terminals), so a graceful stop, `process.exit` or an exit
 * on an uncaught error loses no line; only a SIGKILL can lose the current turn's lines.
 */
export function stdoutLog(): LogLine {
  if (!stdout) {
    const log = batchedLog((chunk) => process.stdout.write(chunk));
    process.on('exit', () => log.flush());
    stdout = log;
  }
  return stdout;
}
