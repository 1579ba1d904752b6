import type { DecisionRequest, Depth } from '../contract/index.js';
import { contextWithoutDecisiveFact, type EvalItem, requestOf } from './item.js';

/**
 * What an evaluation asks. Every item is asked as written; a choice or score item
 * also with its options or levels listed last to first (how presentation order
 * reaches the engine); an item with a decisive fact also without it. Identical
 * requests are asked once: a set's own twin (an item whose context already lacks
 * the fact) is the same request as its original without the fact. At stress depth
 * every request is a stress decision, so the figures are those of its answers
 * (its `contextSufficiency` weighs the checks).
 */

export type Variant = 'given' | 'reversed' | 'without-fact';

export interface Ask {
  key: string;
  request: DecisionRequest;
  /** The first item and variant that asked it, for reporting a failure. */
  id: string;
  variant: Variant;
}

export interface ItemPlan {
  item: EvalItem;
  given: string;
  reversed: string | null;
  withoutFact: string | null;
}

export interface Plan {
  items: ItemPlan[];
  asks: Ask[];
}

export function planEval(items: readonly EvalItem[], depth: Depth = 'standard'): Plan {
  const asks = new Map<string, Ask>();
  const ask = (written: DecisionRequest, id: string, variant: Variant): string => {
    const request = { ...written, depth };
    const key = JSON.stringify(request);
    if (!asks.has(key)) asks.set(key, { key, request, id, variant });
    return key;
  };
  // Every item as written first, so a request that is both an item and another
  // item's variant is reported under the item, and an interrupted run has measured
  // what matters most.
  const given = items.map((item) => ask(requestOf(item), item.id, 'given'));
  const reversed = items.map((item) => {
    const request = reversedOf(requestOf(item));
    return request ? ask(request, item.id, 'reversed') : null;
  });
  const withoutFact = items.map((item) => {
    const context = contextWithoutDecisiveFact(item);
    return context === null ? null : ask({ ...requestOf(item), context }, item.id, 'without-fact');
  });
  return {
    items: items.map((item, i) => ({ item, given: given[i], reversed: reversed[i], withoutFact: withoutFact[i] })),
    asks: [...asks.values()],
  };
}

function reversedOf(request: DecisionRequest): DecisionRequest | null {
  if (request.mode === 'choice') return { ...request, options: [...request.options].reverse() };
  if (request.mode === 'score') return { ...request, levels: [...request.levels].reverse() };
  return null;
}
