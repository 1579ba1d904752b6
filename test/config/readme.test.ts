import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VARIABLES, type Variable } from '../../src/config/variables.js';
import { ROOT } from '../support/cli.js';

/** A variable's name as the docs and the sources write it. */
const NAME = /\b(?:(?:DECIDE|OPENAI|ANTHROPIC)_[A-Z0-9_]+|HTTPS?_PROXY|NO_PROXY)\b/g;
/** Code constants that look like variables and are not read from the environment. */
const NOT_VARIABLES = new Set(['ANTHROPIC_VERSION']);

interface Row {
  names: string[];
  defaultCell: string;
}

/** The rows of the table in docs/configuration.md's "## Settings and variables" section: the variables each names, and its default cell. */
function readmeRows(): Row[] {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
  const section = doc.split(/^## /m).find((part) => part.startsWith('Settings and variables\n'));
  if (!section) throw new Error('docs/configuration.md has no "## Settings and variables" section');
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  // The first two lines are the header and the |---| separator.
  return lines.slice(2).map((line) => {
    const cells = line.split(/(?<!\\)\|/).slice(1, -1);
    expect(cells, line).toHaveLength(3);
    return { names: [...(cells[1] ?? '').matchAll(NAME)].map((m) => m[0]), defaultCell: (cells[2] ?? '').replaceAll('`', '') };
  });
}

describe('the Configuration table (docs/configuration.md)', () => {
  it('lists exactly the variables of src/config/variables.ts, each once', () => {
    const listed = readmeRows().flatMap((row) => row.names);
    expect([...listed].sort()).toEqual(Object.keys(VARIABLES).sort());
  });

  it("states each variable's default as the code does, where both state one", () => {
    for (const row of readmeRows()) {
      for (const name of row.names) {
        const variable: Variable = VARIABLES[name as keyof typeof VARIABLES];
        if (variable.default !== undefined) expect(row.defaultCell, name).toContain(variable.default);
      }
    }
  });
});

describe('the table in code', () => {
  it('names every variable the sources mention', () => {
    const mentioned = new Set<string>();
    for (const file of fs.readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })) {
      if (!/\.tsx?$/.test(file)) continue;
      for (const m of fs.readFileSync(path.join(ROOT, 'src', file), 'utf8').matchAll(NAME)) {
        if (!NOT_VARIABLES.has(m[0])) mentioned.add(m[0]);
      }
    }
    expect([...mentioned].filter((name) => !(name in VARIABLES))).toEqual([]);
  });
});
