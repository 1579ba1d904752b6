import type { DecisionRequest, Depth } from '../contract/index.js';
import { identityOrder, type Order, reversedOrder } from '../decision/orders.js';
import { contextWithoutDecisiveFact, type EvalItem, requestOf } from './item.js';
import { hash32, permutation, seeded } from './random.js';

/**
 * What an evaluation asks. Every item is asked as written, and an item with a
 * decisive fact also without it. At standard depth every item is also asked in other
 * presentation orders, which is how an order bias shows:
 *
 * - a choice or score item with its options or levels reversed, and in `permutations`
 *   more orders drawn at random (seeded by the item's id), so a bias toward the middle
 *   place shows too, not only one toward the first or the last;
 * - a yes/no item with No before Yes, when the decider can present it so (a request
 *   cannot say it: only an engine in this process can be asked that way).
 *
 * Identical requests are asked once: a set's own twin (an item whose context already
 * lacks the fact) is the same request as its original without the fact. At stress
 * depth every request is a stress decision and no other orders are asked: the answers
 * are those of standard depth, and what stress changes is `contextSufficiency`.
 */

export type Variant = 'given' | 'reversed' | 'permuted' | 'no-first' | 'without-fact';

export interface Ask {
  key: string;
  request: DecisionRequest;
  /** How the engine presents the answers before debiasing (yes/no with No first); absent: as the request lists them. */
  presentation?: Order;
  /** The first item and variant that asked it, for reporting a failure. */
  id: string;
  variant: Variant;
}

/** One other order an item was asked in: `order[place]` is the index (in the item's order) of the answer shown there. */
export interface Presentation {
  key: string;
  variant: 'reversed' | 'permuted' | 'no-first';
  order: Order;
}

export interface ItemPlan {
  item: EvalItem;
  given: string;
  presentations: Presentation[];
  withoutFact: string | null;
}

export interface Plan {
  items: ItemPlan[];
  asks: Ask[];
}

export interface PlanOptions {
  depth?: Depth;
  /** Random orders besides the reversed one (choice and score). */
  permutations?: number;
  /** Whether yes/no items can be asked with No first (an engine in this process). */
  noFirst?: boolean;
}

export const PERMUTATIONS = 2;

export function planEval(items: readonly EvalItem[], options: PlanOptions = {}): Plan {
  const depth = options.depth ?? 'standard';
  const asks = new Map<string, Ask>();
  const ask = (written: DecisionRequest, id: string, variant: Variant, presentation?: Order): string => {
    const request = { ...written, depth };
    const key = JSON.stringify(presentation ? [request, presentation] : request);
    if (!asks.has(key)) asks.set(key, { key, request, id, variant, ...(presentation ? { presentation } : {}) });
    return key;
  };
  // Every item as written first, so a request that is both an item and another
  // item's variant is reported under the item.
  const given = items.map((item) => ask(requestOf(item), item.id, 'given'));
  const presentations = items.map((item) =>
    depth === 'stress'
      ? []
      : ordersOf(item, options.permutations ?? PERMUTATIONS, options.noFirst ?? false).map(({ variant, order }) => {
          const request = requestOf(item);
          const key = request.mode === 'noul' ? ask(request, item.id, variant, order) : ask(reordered(request, order), item.id, variant);
          return { key, variant, order };
        }),
  );
  const withoutFact = items.map((item) => {
    const context = contextWithoutDecisiveFact(item);
    return context === null ? null : ask({ ...requestOf(item), context }, item.id, 'without-fact');
  });
  const plans = items.map((item, i) => ({ item, given: given[i], presentations: presentations[i], withoutFact: withoutFact[i] }));
  // Asked item by item, each with its other orders and its cut: their prompts share the
  // question and most of the state, which an engine that keeps what it evaluated last
  // (the local engine's sequences, a server's prefix cache) then reuses.
  const order = [
    ...new Set(plans.flatMap((p) => [p.given, ...p.presentations.map((o) => o.key), ...(p.withoutFact === null ? [] : [p.withoutFact])])),
  ];
  return { items: plans, asks: order.map((key) => asks.get(key)!) };
}

/**
 * The other orders of an item: reversed, then up to `permutations` distinct random
 * ones that are neither as written nor reversed (a three-way question has four such).
 */
export function ordersOf(item: EvalItem, permutations: number, noFirst: boolean): { variant: Presentation['variant']; order: Order }[] {
  if (item.mode === 'noul') return noFirst ? [{ variant: 'no-first', order: reversedOrder(2) }] : [];
  const k = item.mode === 'choice' ? item.options.length : item.levels.length;
  const seen = new Set([identityOrder(k).join(), reversedOrder(k).join()]);
  const orders: { variant: Presentation['variant']; order: Order }[] = [{ variant: 'reversed', order: reversedOrder(k) }];
  const next = seeded(hash32(`orders:${item.id.replace(/-nofact$/, '')}`));
  const possible = factorial(k) - seen.size;
  for (let tries = 0; orders.length <= Math.min(permutations, possible) && tries < 1000; tries++) {
    const order = permutation(k, next);
    if (seen.has(order.join())) continue;
    seen.add(order.join());
    orders.push({ variant: 'permuted', order });
  }
  return orders;
}

function reordered(request: DecisionRequest, order: Order): DecisionRequest {
  if (request.mode === 'choice') return { ...request, options: order.map((i) => request.options[i]) };
  if (request.mode === 'score') return { ...request, levels: order.map((i) => request.levels[i]) };
  return request;
}

function factorial(k: number): number {
  return k <= 1 ? 1 : k * factorial(k - 1);
}
