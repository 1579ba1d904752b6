import Database from 'better-sqlite3';
import type { CallOptions } from '../support/api.js';
import type { Running } from '../support/service.js';

/** `name=value` of a Set-Cookie header, as a browser would send it back. */
export function cookieOf(setCookie: string | undefined): string {
  if (!setCookie) throw new Error('no Set-Cookie in the answer');
  return setCookie.split(';')[0];
}

/**
 * A browser, as the API sees one: it sends its own page's `Origin` (or the one given)
 * and, once it has one, its pass cookie.
 */
export function browserOf(svc: Pick<Running, 'call' | 'url'>, origin: string | null = svc.url) {
  const self = {
    cookie: undefined as string | undefined,
    call(method: string, path: string, options: CallOptions = {}) {
      const headers: Record<string, string> = {};
      if (origin !== null) headers.origin = origin;
      if (self.cookie) headers.cookie = self.cookie;
      return svc.call(method, path, { ...options, headers: { ...headers, ...options.headers } });
    },
    /** POST /v1/pass; keeps the cookie it sets. */
    async verify(json?: unknown) {
      const res = await self.call('POST', '/v1/pass', json === undefined ? {} : { json });
      if (res.headers['set-cookie']) self.cookie = cookieOf(res.headers['set-cookie']);
      return res;
    },
    /** A verified browser's new key. */
    async newKey() {
      if (!self.cookie) await self.verify();
      const res = await self.call('POST', '/v1/keys');
      if (res.status !== 201) throw new Error(`POST /v1/keys answered ${res.status}: ${res.text}`);
      return res.body as { id: string; key: string; keyHint: string; createdAt: string };
    },
  };
  return self;
}

/** Rows of the service's SQLite ledger, read through a connection of its own. */
export function ledgerRows<T = Record<string, unknown>>(svc: Running, sql: string, params: unknown[] = []): T[] {
  const db = new Database(svc.dbPath, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

export const passCount = (svc: Running) => ledgerRows<{ n: number }>(svc, 'SELECT count(*) AS n FROM passes')[0].n;
