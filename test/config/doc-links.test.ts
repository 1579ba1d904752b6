import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/**
 * The project's own Markdown: every relative link names a file that exists, and every
 * `#anchor` a heading of the file it points into, as GitHub and the npm page make
 * them. A moved section whose old links were left behind fails here.
 */
const DOCS = [
  'README.md',
  'ARCHITECTURE.md',
  'bench/README.md',
  'bench/HISTORY.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks, where a `[x](y)` is code, not a link. */
function prose(doc: string): string {
  return fs.readFileSync(path.join(ROOT, doc), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats numbered. */
function anchors(doc: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const m of prose(doc).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replaceAll(' ', '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  return found;
}

function links(doc: string): { target: string; anchor: string | undefined }[] {
  return [...prose(doc).matchAll(/\]\(([^)\s]*)\)/g)]
    .map((m) => m[1]!)
    .filter((href) => !/^[a-z]+:/.test(href))
    .map((href) => {
      const [file, anchor] = href.split('#') as [string, string | undefined];
      return { target: file === '' ? doc : path.posix.normalize(path.posix.join(path.posix.dirname(doc), file)), anchor };
    });
}

describe("the project's Markdown links", () => {
  it.each(DOCS)('%s: every relative link names a file, every anchor a heading there', (doc) => {
    expect(fs.existsSync(path.join(ROOT, doc)), doc).toBe(true);
    for (const { target, anchor } of links(doc)) {
      expect(fs.existsSync(path.join(ROOT, target)), `${doc} links to ${target}`).toBe(true);
      if (anchor !== undefined) expect(anchors(target), `${doc} links to ${target}#${anchor}`).toContain(anchor);
    }
  });

  it.each(DOCS.filter((doc) => doc.startsWith('docs/')))('%s: over 80 lines, it opens with a list of its sections', (doc) => {
    const text = fs.readFileSync(path.join(ROOT, doc), 'utf8');
    if (text.split('\n').length <= 80) return;
    const sections = [...prose(doc).matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    const contents = text.slice(0, text.indexOf('\n## ')).match(/^- \[.+\]\(#.+\)$/gm) ?? [];
    expect(contents, doc).toHaveLength(sections.length);
  });
});
