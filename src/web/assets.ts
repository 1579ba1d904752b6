import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Hono } from 'hono';
import { wordingScript } from './wording-script.js';

/**
 * The pages' static files (static/ at the package root: the client scripts, the style
 * sheet, the icon), read once at start, and the contract's words as a script. Each is
 * served under a name carrying a hash of its content, cached for a year: a new
 * version is a new URL, so a browser never runs an old script against a new page.
 */
const ROOT = new URL('../../static/', import.meta.url); // from src/web/ and from dist/web/ alike

const JS = 'text/javascript; charset=utf-8';

/** Each asset: a file of static/, or a script the server writes from the contract (`wording`, before the others). */
const FILES = {
  wording: { name: 'wording.js', type: JS, body: () => Buffer.from(wordingScript()) },
  answer: { name: 'answer.js', type: JS },
  js: { name: 'app.js', type: JS },
  home: { name: 'home.js', type: JS },
  snippets: { name: 'snippets.js', type: JS },
  css: { name: 'app.css', type: 'text/css; charset=utf-8' },
  icon: { name: 'icon.svg', type: 'image/svg+xml' },
} as const;

export type AssetUrls = Record<keyof typeof FILES, string>;

// biome-ignore lint/suspicious/noExplicitAny: an app of any environment; Hono's type parameter admits no wider one
export function mountAssets(app: Hono<any>): AssetUrls {
  const urls = {} as AssetUrls;
  for (const [key, asset] of Object.entries(FILES) as [keyof typeof FILES, (typeof FILES)[keyof typeof FILES]][]) {
    const body = 'body' in asset ? asset.body() : fs.readFileSync(new URL(asset.name, ROOT));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const [base, ext] = asset.name.split('.');
    const url = `/assets/${base}.${hash}.${ext}`;
    urls[key] = url;
    app.get(url, (c) =>
      c.body(new Uint8Array(body), 200, {
        'Content-Type': asset.type,
        'Cache-Control': 'public, max-age=31536000, immutable',
        'X-Content-Type-Options': 'nosniff',
      }),
    );
  }
  return urls;
}
