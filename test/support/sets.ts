import fs from 'node:fs';
import path from 'node:path';
import type { EvalItem } from '../../src/eval/item.js';

/**
 * Labelled sets for tests, written where the CLI can read them.
 *
 * `copies` makes a larger set of the same kind as the shipped one: each item n times,
 * its question marked with the copy (`… (copy 2)`), so each copy is a request of its
 * own, and its id and family marked too, so each copy is a group of its own in the
 * halves (halves.ts) and the simulated model draws its own latent confidence for it.
 * A twin stays the twin of its original's copy: same question, `-nofact` last.
 */
export function copies(items: readonly EvalItem[], n: number): EvalItem[] {
  return [...Array(n).keys()].flatMap((k) =>
    items.map((item) => ({
      ...item,
      id: item.id.replace(/(-nofact)?$/, `-c${k + 1}$1`),
      question: `${item.question} (copy ${k + 1})`,
      ...(item.family === undefined ? {} : { family: `${item.family}-c${k + 1}` }),
    })),
  );
}

/** Writes `items` as JSON Lines to `dir/name` and returns the path. */
export function writeSet(dir: string, name: string, items: readonly EvalItem[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, items.map((item) => JSON.stringify(item)).join('\n') + '\n');
  return file;
}
