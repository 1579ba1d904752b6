import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/**
 * The floors of ARCHITECTURE.md are kept by the linter (biome.jsonc), not by care: a
 * file may import from its own floor or below, never from above. These tests read the
 * floors from ARCHITECTURE.md's table, write one probe file per folder that imports
 * every other folder, and run the project's Biome with the project's configuration
 * over them: each import from above must be refused, each from the same floor or below
 * let through. So the table, the configuration and the tree cannot drift apart.
 */
const run = promisify(execFile);

/** Folder → floor, from the table in ARCHITECTURE.md's "The floors". */
function floors(): Map<string, number> {
  const doc = fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const section = doc.split(/^## /m).find((part) => part.startsWith('The floors\n'));
  if (!section) throw new Error('ARCHITECTURE.md has no "## The floors" section');
  const floorOf = new Map<string, number>();
  for (const line of section.split('\n')) {
    const row = /^\| (\d+) \| ([^|]+) \|/.exec(line);
    if (!row) continue;
    for (const folder of row[2].matchAll(/`([a-z-]+)\/`/g)) floorOf.set(folder[1], Number(row[1]));
  }
  return floorOf;
}

interface Diagnostic {
  category: string;
  location: { path: string | { file: string }; start?: { line: number } };
  message?: unknown;
  description?: string;
}

let dir: string;
const floorOf = floors();
const folders = [...floorOf.keys()];
/** For each probe folder, the 1-based lines Biome refused. */
const refused = new Map<string, Set<number>>();
const messages: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-floors-'));
  fs.copyFileSync(path.join(ROOT, 'biome.jsonc'), path.join(dir, 'biome.jsonc'));
  for (const folder of folders) {
    fs.mkdirSync(path.join(dir, 'src', folder), { recursive: true });
    // Line i + 1 imports folders[i]; the last line uses them all so none is unused.
    const lines = folders.map((other, i) => `import { x${i} } from '../${other}/probe.js';`);
    lines.push(`export const all = [${folders.map((_, i) => `x${i}`).join(', ')}];`);
    fs.writeFileSync(path.join(dir, 'src', folder, 'probe.ts'), `${lines.join('\n')}\n`);
  }
  const biome = path.join(ROOT, 'node_modules', '.bin', 'biome');
  const args = ['lint', '--reporter=json', '--max-diagnostics=none', '--only=style/noRestrictedImports', 'src'];
  // Biome exits 1 when it finds errors, which is what the probes are for.
  const { stdout } = await run(biome, args, { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).catch((error) => error);
  const report = JSON.parse(stdout) as { diagnostics: Diagnostic[] };
  for (const d of report.diagnostics) {
    expect(d.category, JSON.stringify(d)).toBe('lint/style/noRestrictedImports');
    const file = typeof d.location.path === 'string' ? d.location.path : d.location.path.file;
    const folder = path.basename(path.dirname(file));
    const line = d.location.start?.line;
    if (line === undefined) throw new Error(`no line in ${JSON.stringify(d.location)}`);
    if (!refused.has(folder)) refused.set(folder, new Set());
    refused.get(folder)!.add(line);
    messages.push(d.description ?? JSON.stringify(d.message));
  }
}, 120_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the floors of ARCHITECTURE.md, as the linter keeps them', () => {
  it('the table places every folder of src/ on a floor', () => {
    const inSrc = fs
      .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(inSrc.filter((folder) => !floorOf.has(folder))).toEqual([]);
    expect(folders.length).toBeGreaterThanOrEqual(14);
  });

  it.each(folders)('%s/ may import from its floor and below, and is refused each folder above', (folder) => {
    const expected = folders.flatMap((other, i) => (floorOf.get(other)! > floorOf.get(folder)! ? [i + 1] : []));
    expect([...(refused.get(folder) ?? [])].sort((a, b) => a - b)).toEqual(expected);
  });

  it('a refusal names the floor and ARCHITECTURE.md', () => {
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(message).toMatch(/floor \d+ of ARCHITECTURE\.md/);
  });
});
