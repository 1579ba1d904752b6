import { distractors, money, redraw, roundTo, tenths } from './kit.mjs';

const CARRIERS = [
  'Harbor Line',
  'Swift Parcel',
  'Kestrel Cargo',
  'Bluegate Transport',
  'Pinecrest Haulage',
  'Orbit Express',
  'Meridian Freight',
  'Lantern Logistics',
  'Coastal Relay',
  'Ridgeway Carriers',
  'Copperfield Couriers',
  'Tallis Transport',
];
const CUSTOMERS = [
  'Velmora Textiles',
  'Quenby Ceramics',
  'Arlo Garden Supply',
  'Brisk Bicycles',
  'Dunlin Bakeware',
  'Fenwick Lighting',
  'Holloway Paper',
  'Marden Audio',
  'Osric Furniture',
  'Tamsin Toys',
  'Greyfield Tools',
  'Linden Stationery',
];

/**
 * Carrier booking: the cheapest carrier that delivers within the customer's deadline.
 * The quotes trade speed for price (each slower carrier is cheaper), so every carrier
 * is the right one for some deadline, and the members of a group differ only in the
 * deadline: the cheapest quote, the second cheapest or the fastest is each right once.
 * Deadlines fall strictly between two carriers' transit times, a day or more from each.
 */
export const carrier = {
  name: 'carrier',
  domain: 'logistics',
  mode: 'choice',
  make(rng, count) {
    const customer = rng.pick(CUSTOMERS);
    const names = rng.sample(CARRIERS, count);
    const days = [rng.int(1, 3)];
    while (days.length < count) days.push(days.at(-1) + rng.int(2, 4));
    // The fastest is the dearest; each slower quote 12 % to 35 % cheaper, rounded to $5.
    const prices = redraw(() => {
      const list = [rng.int(80, 240) * 5];
      while (list.length < count) list.push(roundTo(list.at(-1) * rng.float(0.65, 0.88), 5));
      return list.every((p, i) => i === 0 || p <= 0.9 * list[i - 1]) && list.at(-1) >= 50 ? list : null;
    }, 'carrier prices');
    const quote = (name, i) =>
      rng.pick([
        `${name} quotes ${money(prices[i])} and takes ${days[i]} ${days[i] === 1 ? 'day' : 'days'}.`,
        `${name} would charge ${money(prices[i])} with a transit time of ${days[i]} ${days[i] === 1 ? 'day' : 'days'}.`,
        `${name} offers delivery in ${days[i]} ${days[i] === 1 ? 'day' : 'days'} for ${money(prices[i])}.`,
      ]);
    const within = rng.pick([
      (d) => `${customer} needs the goods within ${d} days.`,
      (d) => `${customer} has asked for delivery within ${d} days.`,
    ]);
    const members = names.map((name, j) => {
      const deadline = j === count - 1 ? days[j] + rng.int(1, 4) : rng.int(days[j] + 1, days[j + 1] - 1);
      // The rule applied to the numbers: the cheapest of the carriers in time.
      const inTime = names.map((_, i) => i).filter((i) => days[i] <= deadline);
      const cheapest = inTime.reduce((a, b) => (prices[b] < prices[a] ? b : a));
      if (cheapest !== j) throw new Error(`carrier: deadline ${deadline} picks ${names[cheapest]}, not ${name}`);
      return { decisive: within(deadline), answer: name };
    });
    return {
      question: rng.pick([
        `Which carrier should we book for the ${customer} shipment?`,
        `Which carrier do we book to ship the order for ${customer}?`,
      ]),
      shared: [
        rng.pick([
          "We always book the cheapest carrier that can deliver within the customer's deadline.",
          "Our shipping rule is to pick the lowest-priced carrier whose transit time fits the customer's deadline.",
          'For each shipment we choose the cheapest carrier among those that arrive within the deadline the customer gives.',
        ]),
        ...names.map(quote),
        ...distractors(rng, [
          `${rng.pick(names)} offers online tracking.`,
          `The shipment leaves from our warehouse on the ring road.`,
          `${customer} has been a customer since last spring.`,
          `All quoted prices include fuel surcharges.`,
          `The goods are packed on a single pallet.`,
        ]),
      ],
      options: names,
      members,
    };
  },
};

const SHIPPERS = ['Brightwell Crafts', 'Corvane Outfitters', 'Tessaly Home', 'Ondra Sports', 'Pellow Books', 'Wickham Kitchenware'];
const LEVELS = [
  ['letter post', 'parcel service', 'freight'],
  ['small parcel', 'standard parcel', 'pallet freight'],
  ['courier envelope', 'courier parcel', 'freight service'],
];
// Goods and their unit weight in tenths of a kilogram, in three disjoint weight
// classes: a group's goods come from one class, its rung (see shipclass).
const GOODS = [
  [
    ['phone cases', 1],
    ['pairs of socks', 1],
    ['scented candles', 2],
    ['USB hubs', 2],
    ['paperback books', 3],
    ['ceramic mugs', 4],
    ['tins of coffee', 5],
  ],
  [
    ['kettles', 9],
    ['bottles of olive oil', 12],
    ['table lamps', 15],
    ['hardback atlases', 18],
    ['desk fans', 22],
    ['cast iron pans', 25],
    ['tins of floor paint', 30],
    ['pairs of dumbbells', 35],
  ],
  [
    ['bags of rice', 50],
    ['bags of dog food', 75],
    ['bags of potting soil', 100],
    ['car batteries', 150],
    ['crates of wine', 160],
    ['boxes of floor tiles', 200],
    ['bags of cement', 250],
  ],
];

/**
 * Shipping class by total weight: the rule gives the bands, the contents sentence the
 * count and the goods, the packing sentence the rest. The members of a group ship the
 * same number of items in the same box and differ in what the items are, so each
 * class is right once. A group's goods come from one weight class of the family's
 * ladder (half a kilogram or less, 0.9 to 3.5 kg, 5 kg and more), so a unit weight
 * alone says nothing, and the question names no goods. Totals sit 20 % or more
 * inside their band.
 */
export const shipclass = {
  name: 'shipclass',
  domain: 'logistics',
  mode: 'score',
  make(rng, _size, rung) {
    const shipper = rng.pick(SHIPPERS);
    const levels = rng.pick(LEVELS);
    const { low, high, packing, count, goods } = redraw(() => {
      const low = rng.pick([2, 5, 10, 15]); // kg
      const high = rng.pick([10, 20, 30, 40].filter((h) => h >= 2 * low));
      const goods = rng.sample(GOODS[rung], 3).sort((a, b) => a[1] - b[1]);
      if (goods[0][1] === goods[1][1] || goods[1][1] === goods[2][1]) return null;
      // The box weighs no more than the lightest item, so the box is always the context's smallest number.
      const packing = rng.int(1, Math.min(8, goods[0][1])); // tenths of a kilogram
      const bands = [(w) => w <= 8 * low, (w) => w >= 12.5 * low && w <= 8 * high, (w) => w >= 12.5 * high];
      const counts = Array.from({ length: 299 }, (_, i) => i + 2).filter((n) =>
        goods.every(([, w], level) => bands[level](n * w + packing)),
      );
      return counts.length ? { low, high, packing, count: rng.pick(counts), goods } : null;
    }, 'shipclass goods');
    const contents = rng.pick([
      ([g, w]) => `The package holds ${count} ${g} weighing ${tenths(w)} kg each.`,
      ([g, w]) => `The order is ${count} ${g} of ${tenths(w)} kg each.`,
    ]);
    return {
      question: rng.pick([`Which shipping class does ${shipper} use for this package?`, `How should ${shipper} ship this package?`]),
      shared: [
        `${shipper} ships a package by its total weight: under ${low} kg as "${levels[0]}", from ${low} to ${high} kg as "${levels[1]}", and over ${high} kg as "${levels[2]}".`,
        `The box and padding add ${tenths(packing)} kg.`,
        ...distractors(rng, [
          'The customer asked for the package to be left with a neighbour if nobody is home.',
          `${shipper} prints its shipping labels in the morning.`,
          'The package goes to an address in the same country.',
          `Returns to ${shipper} are free of charge.`,
        ]),
      ],
      levels,
      members: goods.map((g, level) => ({ decisive: contents(g), answer: levels[level] })),
    };
  },
};
