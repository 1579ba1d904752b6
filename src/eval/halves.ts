import { hash32 } from './random.js';

/**
 * The two fixed halves of a labelled set. Methods are fitted or chosen on the even
 * half and reported on the odd half, so no reported figure was tuned on its own items.
 *
 * An item falls in the half of its group: its `family` when it has one (siblings made
 * from one template, which would otherwise teach the fitted half what the held-out
 * half asks), else its own id, a twin's (`<id>-nofact`) included, so an item and the
 * same decision without its deciding fact are always on one side.
 *
 * Groups are dealt out, not tossed: within each mode, the families (and, apart, the
 * single items) are ordered by a hash of their name and given to the halves in turn,
 * so each half holds about half of every mode and of every kind of group, however few
 * families a mode has. The halves are those of the whole set: items added to a set can
 * move others from one half to the other.
 */

export type Half = 'even' | 'odd';
export const HALVES: readonly Half[] = ['even', 'odd'];

interface Grouped {
  id: string;
  mode: string;
  family?: string;
}

export function groupOf(item: { id: string; family?: string }): string {
  return item.family ?? item.id.replace(/-nofact$/, '');
}

/** The half of every item of `items`, by id. */
export function splitHalves(items: readonly Grouped[]): Map<string, Half> {
  const piles = new Map<string, Set<string>>();
  for (const item of items) {
    const pile = `${item.mode}:${item.family === undefined ? 'single' : 'family'}`;
    piles.set(pile, (piles.get(pile) ?? new Set()).add(groupOf(item)));
  }
  const halfOfGroup = new Map<string, Half>();
  for (const groups of piles.values()) {
    const dealt = [...groups].sort((a, b) => hash32(`half:${a}`) - hash32(`half:${b}`) || (a < b ? -1 : 1));
    // A group already dealt in another pile (a family spanning modes) keeps its half.
    dealt.forEach((group, i) => halfOfGroup.has(group) || halfOfGroup.set(group, i % 2 === 0 ? 'even' : 'odd'));
  }
  return new Map(items.map((item) => [item.id, halfOfGroup.get(groupOf(item))!]));
}
