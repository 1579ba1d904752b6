import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Configuration is read once, at the edge (src/cli and src/server), and handed down
 * as typed options (src/config/config.ts says why): every other file under src/ takes
 * what it needs as an argument, and none reads the process's environment.
 */
const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
const EDGE = ['cli', 'server'].map((dir) => path.join(SRC, dir) + path.sep);
/** `process.env`, `process['env']`, and `{ env } = process`, whatever the spacing. */
const READS_ENV = /\bprocess\s*(\.\s*env\b|\[\s*['"`]env['"`]\s*\])|\}\s*=\s*process\s*[;\n]/;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return /\.(ts|tsx|js|mjs)$/.test(entry.name) ? [file] : [];
  });
}

describe('configuration is read at the edge only', () => {
  it('no file under src/ outside src/cli and src/server reads the environment', () => {
    const below = sources(SRC).filter((file) => !EDGE.some((edge) => file.startsWith(edge)));
    expect(below.length).toBeGreaterThan(50);
    const reading = below.filter((file) => READS_ENV.test(fs.readFileSync(file, 'utf8'))).map((file) => path.relative(SRC, file));
    expect(
      reading,
      `these files read the environment below the edge; take the setting as an option instead: ${reading.join(', ')}`,
    ).toEqual([]);
  });

  it('the check sees a read in any of its spellings', () => {
    for (const line of ['const a = process.env.DECIDE_DB;', "process['env']", 'const { env } = process;', 'process .env']) {
      expect(READS_ENV.test(line), line).toBe(true);
    }
    expect(READS_ENV.test('the process environment, process.exit(1)')).toBe(false);
  });
});
