import type { MiddlewareHandler } from 'hono';
import { performance } from 'node:perf_hooks';
import type { AppEnv } from './env.js';

export type LogLine = (line: string) => void;

/** One JSON line a request: never a key or a body, only the key's hint. */
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
      }),
    );
  };
}
