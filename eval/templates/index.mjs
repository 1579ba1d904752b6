// The template families, in the order their ids are numbered and summarised.
//
// A family's items come in groups, contrast sets: the members of a group share the
// question, the options or levels and every sentence but one, the decisive fact, and
// their answers are every class once (each option of a choice group, yes and no, the
// three levels). Whatever a shortcut reads apart from the decisive fact (where the
// answer stands, how long an option is, the numbers around it, how often it is
// named, what the question says) is the same for every member, so it points at each
// answer once and scores exactly chance; and without its decisive fact every member
// is the same request, which the group shows to have several answers.
//
// A family is { name, domain, mode, groups, make(rng, size, rung) }: `groups` lists the
// sizes of its groups (a choice group's size is its option count; yes/no groups are
// pairs, score groups triples), and `make` returns one group:
// { question, options | levels, shared, members: [{ decisive, answer }] }, with
// `shared` the sentences every member has, in any order. Yes/no and score families
// also get the group's `rung`, its index: the window of the family's ladder its
// decisive values come from (kit.mjs, ladder), so that a decisive number alone does
// not tell the answer.
import { carrier, shipclass } from './logistics.mjs';
import { plan, priority } from './product.mjs';
import { schedule, slots } from './scheduling.mjs';
import { bus, fuel, paint } from './everyday.mjs';
import { capacity, headroom } from './engineering.mjs';
import { alert, reorder } from './operations.mjs';
import { approval, bulk } from './purchasing.mjs';

// Choice groups of 2 to 6 options, ten items a family, every option count present.
const CHOICE = { carrier: [2, 3, 5], plan: [4, 6], slots: [2, 2, 6], bus: [5, 5], bulk: [3, 3, 4] };
const PAIRS = [2, 2, 2, 2];
const TRIPLES = [3, 3, 3];

const choice = (family) => ({ ...family, groups: CHOICE[family.name] });
const noul = (family) => ({ ...family, groups: PAIRS });
const score = (family) => ({ ...family, groups: TRIPLES });

export const FAMILIES = [
  ...[carrier, plan, slots, bus, bulk].map(choice),
  ...[capacity, approval, reorder, paint, fuel].map(noul),
  ...[alert, priority, headroom, shipclass, schedule].map(score),
];
