// The template families, in the order their ids are numbered and summarised.
// A family is { name, domain, mode, make(rng, target) }: `target` is the answer the
// schedule wants (choice: { count, position }; noul: a boolean; score: a level index)
// and `make` returns { question, facts, decisive, options | levels, answer }, with
// `facts` the context's sentences in any order and `decisive` one of them.
import { carrier, shipclass } from './logistics.mjs';
import { plan, priority } from './product.mjs';
import { slots } from './scheduling.mjs';
import { bus, paint } from './everyday.mjs';
import { capacity, headroom } from './engineering.mjs';
import { alert, reorder } from './operations.mjs';
import { approval } from './purchasing.mjs';

export const FAMILIES = [
  // choice
  carrier, plan, slots, bus,
  // noul
  capacity, approval, reorder, paint,
  // score
  alert, priority, headroom, shipclass,
];
