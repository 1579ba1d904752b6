import { distractors, grouped, ladder, money, nice, PEOPLE, redraw, roundTo } from './kit.mjs';

const COMPANIES = ['Corvane', 'Brightwell', 'Tessaly', 'Ondra Labs', 'Pellow and Finch', 'Marrick Studio'];
// Goods bought a few at a time, by the price window of their rung (see approval); and goods bought by the dozen.
const DEAR = {
  0: ['desk lamps', 'headsets', 'keyboards', 'webcams'],
  2: ['ergonomic chairs', 'laptop docks', 'storage cabinets', 'label printers'],
};
const CHEAP = ['notebooks', 'whiteboard markers', 'branded mugs', 'packs of sticky notes', 'USB sticks'];
const DEPARTMENTS = ['support', 'design', 'warehouse', 'accounts', 'training', 'facilities'];

/**
 * Approval limit: quantity × unit price against the team lead's limit, 20 % or more
 * apart. The members of a pair share the company, the limit and one factor of the
 * order and differ in the other: the unit price of dear goods (groups at even rungs)
 * or the quantity of cheap ones (odd rungs). So the limit alone says nothing, and the
 * differing factor of a pair sits in its own window of the family's ladder (prices of
 * $15 to $45 or $135 to $405, quantities of 60 to 180 or 540 to 1,620), so it says
 * nothing alone either. It lies between the shared factor and the limit.
 */
export const approval = {
  name: 'approval',
  domain: 'purchasing',
  mode: 'noul',
  make(rng, _size, rung) {
    const company = rng.pick(COMPANIES);
    const lead = rng.pick(PEOPLE);
    const dear = rung % 2 === 0;
    const goods = rng.pick(dear ? DEAR[rung] : CHEAP);
    const [lo, hi] = ladder(rung, dear ? 15 : 20, 3);
    const { limit, orders } = redraw(() => {
      const shared = dear ? rng.int(3, 12) : rng.int(2, 9);
      // The other factor, low and high in the rung's window, and a limit 20 % clear of both totals.
      const other = [nice(rng.float(lo, 1.3 * lo)), nice(rng.float(0.72 * hi, 0.97 * hi))];
      const limit = roundTo(rng.float((shared * other[0]) / 0.8, (shared * other[1]) / 1.25), 50);
      const orders = other.map((o) => (dear ? { quantity: shared, unit: o } : { quantity: o, unit: shared }));
      const ok =
        orders[0].quantity * orders[0].unit <= 0.8 * limit &&
        orders[1].quantity * orders[1].unit >= 1.25 * limit &&
        other.every((o) => o >= lo && o < hi && o > shared && o < limit);
      return ok ? { limit, orders } : null;
    }, 'approval total');
    const order = rng.pick([
      ({ quantity, unit }) => `${lead} wants to order ${grouped(quantity)} ${goods} at ${money(unit)} each.`,
      ({ quantity, unit }) => `The order ${lead} has prepared is for ${grouped(quantity)} ${goods} costing ${money(unit)} apiece.`,
    ]);
    return {
      question: rng.pick([`Can ${lead} approve this order without the finance director?`, `May ${lead} sign off this order alone?`]),
      shared: [
        `At ${company}, a team lead may approve an order alone only if its total stays within the team lead approval limit; a larger order also needs the finance director.`,
        `${lead} is the team lead of the ${rng.pick(DEPARTMENTS)} team.`,
        'The supplier charges no delivery fee or tax on top of the listed prices.',
        `The team lead approval limit at ${company} is ${money(limit)} per order.`,
        ...distractors(rng, [
          'The supplier promises delivery within a week.',
          `${company} pays its suppliers at the end of each month.`,
          `The ${goods} will replace older ones bought several years ago.`,
          'The finance director is in the office every weekday.',
        ]),
      ],
      members: orders.map((o, i) => ({ decisive: order(o), answer: i === 0 })),
    };
  },
};

const SUPPLIERS = [
  'Keller Supply',
  'Brandt Wholesale',
  'Mosely Trading',
  'Orin Promotions',
  'Vance Print',
  'Halden Goods',
  'Tolliver Merch',
];
const MERCH = ['printed mugs', 'tote bags', 'branded notebooks', 'enamel pins', 'embroidered caps', 'printed lanyards'];
const EVENTS = ['its staff party', 'a trade fair', 'a customer conference', 'the summer open day', 'a charity run'];

/**
 * Bulk pricing: the supplier with the lowest total, a setup fee plus a unit price
 * times the quantity. Higher fees come with lower unit prices, so each supplier is
 * the cheapest for some range of quantities, and the members of a group differ only
 * in the quantity: small orders favour the low fee, large ones the low unit price.
 * The winner's total is 10 % or more below every other supplier's.
 */
export const bulk = {
  name: 'bulk',
  domain: 'purchasing',
  mode: 'choice',
  make(rng, count) {
    const company = rng.pick(COMPANIES);
    const goods = rng.pick(MERCH);
    const names = rng.sample(SUPPLIERS, count);
    const { fees, units, quantities } = redraw(() => {
      const quantities = [rng.int(2, 6) * 5];
      while (quantities.length < count) quantities.push(roundTo(quantities.at(-1) * rng.float(3, 5), 10));
      const units = [rng.int(12, 30)];
      while (units.length < count) units.push(Math.round(units.at(-1) * rng.float(0.5, 0.78)));
      // Each fee step is what the cheaper units save at the quantity halfway (geometrically) between two orders.
      const fees = [rng.pick([0, 25, 50])];
      for (let i = 1; i < count; i++) {
        const between = Math.sqrt(quantities[i - 1] * quantities[i]);
        fees.push(fees[i - 1] + roundTo(between * (units[i - 1] - units[i]), 10));
      }
      const total = (i, q) => fees[i] + units[i] * q;
      const clear = quantities.every((q, j) => names.every((_, i) => i === j || total(j, q) <= 0.9 * total(i, q)));
      return clear && units.at(-1) >= 1 ? { fees, units, quantities } : null;
    }, 'bulk totals');
    const price = (name, i) =>
      fees[i] === 0
        ? `${name} charges no setup fee and ${money(units[i])} per item.`
        : rng.pick([
            `${name} charges a setup fee of ${money(fees[i])} plus ${money(units[i])} per item.`,
            `${name} asks ${money(fees[i])} to set up the order and ${money(units[i])} for each item.`,
          ]);
    const needs = rng.pick([
      (q) => `${company} needs ${grouped(q)} ${goods} for ${rng.pick(EVENTS)}.`,
      (q) => `The order is for ${grouped(q)} ${goods}.`,
    ]);
    return {
      question: rng.pick([`Which supplier should ${company} order the ${goods} from?`, `Where should ${company} buy the ${goods}?`]),
      shared: [
        `${company} orders from the supplier with the lowest total for the whole order: the setup fee plus the price per item times the number of items.`,
        ...names.map(price),
        ...distractors(rng, [
          `${rng.pick(names)} delivers in recycled packaging.`,
          'Every supplier prints the logo in full colour.',
          `${company} has ordered ${goods} once before.`,
          'All prices include delivery.',
        ]),
      ],
      options: names,
      members: quantities.map((q, j) => ({ decisive: needs(q), answer: names[j] })),
    };
  },
};
