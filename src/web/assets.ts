import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Hono } from 'hono';

/**
 * The pages' static files (static/ at the package root: the client scripts, the style
 * sheet, the icon), read once at start. Each is served under a name carrying a hash
 * of its content, cached for a year: a new version is a new URL, so a browser never
 * runs an old script against a new page.
 */
const ROOT = new URL('../../static/', import.meta.url); // from src/web/ and from dist/web/ alike

const FILES = {
  answer: { file: 'answer.js', type: 'text/javascript; charset=utf-8' },
  js: { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  home: { file: 'home.js', type: 'text/javascript; charset=utf-8' },
  snippets: { file: 'snippets.js', type: 'text/javascript; charset=utf-8' },
  css: { file: 'app.css', type: 'text/css; charset=utf-8' },
  icon: { file: 'icon.svg', type: 'image/svg+xml' },
} as const;

export type AssetUrls = Record<keyof typeof FILES, string>;

// biome-ignore lint/suspicious/noExplicitAny: an app of any environment; Hono's type parameter admits no wider one
export function mountAssets(app: Hono<any>): AssetUrls {
  const urls = {} as AssetUrls;
  for (const [name, { file, type }] of Object.entries(FILES) as [keyof typeof FILES, (typeof FILES)[keyof typeof FILES]][]) {
    const body = fs.readFileSync(new URL(file, ROOT));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const [base, ext] = file.split('.');
    const url = `/assets/${base}.${hash}.${ext}`;
    urls[name] = url;
    app.get(url, (c) =>
      c.body(new Uint8Array(body), 200, {
        'Content-Type': type,
        'Cache-Control': 'public, max-age=31536000, immutable',
        'X-Content-Type-Options': 'nosniff',
      }),
    );
  }
  return urls;
}
