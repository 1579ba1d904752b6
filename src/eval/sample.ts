import type { EvalItem } from './item.js';
import { hash32 } from './random.js';

/**
 * A sample of `n` items for `--limit`, stratified by mode and by where the right
 * answer stands (first, in between or last option; low, middle or high level; yes or
 * no), so a small run measures what the whole set would, in proportion, rather than
 * whatever the file happens to begin with. Strata are drawn from in turn, each in a
 * seeded order; a twin (`<id>-nofact`) comes with its original and counts toward `n`.
 * The same set and `n` always give the same sample, in the set's own order.
 */
export function stratifiedSample(items: readonly EvalItem[], n: number): EvalItem[] {
  if (n >= items.length) return [...items];
  const ids = new Set(items.map((item) => item.id));
  const twinOf = new Map(items.filter((item) => item.id.endsWith('-nofact')).map((twin) => [twin.id.slice(0, -'-nofact'.length), twin]));
  const originals = items.filter((item) => !(item.id.endsWith('-nofact') && ids.has(item.id.slice(0, -'-nofact'.length))));

  const strata = new Map<string, EvalItem[]>();
  for (const item of originals) strata.set(stratumOf(item), [...(strata.get(stratumOf(item)) ?? []), item]);
  const queues = [...strata.keys()]
    .sort()
    .map((key) => [...strata.get(key)!].sort((a, b) => hash32(`sample:${a.id}`) - hash32(`sample:${b.id}`)));

  const chosen = new Set<string>();
  let count = 0;
  while (count < n && queues.some((q) => q.length > 0)) {
    for (const queue of queues) {
      const item = queue.shift();
      if (!item || count >= n) continue;
      chosen.add(item.id);
      count++;
      const twin = twinOf.get(item.id);
      if (twin && count < n) {
        chosen.add(twin.id);
        count++;
      }
    }
  }
  return items.filter((item) => chosen.has(item.id));
}

function stratumOf(item: EvalItem): string {
  switch (item.mode) {
    case 'noul':
      return `noul:${item.answer ? 'yes' : 'no'}`;
    case 'score':
      return `score:${item.levels.indexOf(item.answer)}`;
    case 'choice': {
      const at = item.options.indexOf(item.answer);
      return `choice:${at === 0 ? 'first' : at === item.options.length - 1 ? 'last' : 'middle'}`;
    }
  }
}
