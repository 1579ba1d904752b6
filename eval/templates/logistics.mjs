import { distractors, money, placeAnswer, redraw, roundTo, tenths } from './kit.mjs';

const CARRIERS = [
  'Harbor Line', 'Swift Parcel', 'Kestrel Cargo', 'Bluegate Transport', 'Pinecrest Haulage', 'Orbit Express',
  'Meridian Freight', 'Lantern Logistics', 'Coastal Relay', 'Ridgeway Carriers', 'Copperfield Couriers', 'Tallis Transport',
];
const CUSTOMERS = [
  'Velmora Textiles', 'Quenby Ceramics', 'Arlo Garden Supply', 'Brisk Bicycles', 'Dunlin Bakeware', 'Fenwick Lighting',
  'Holloway Paper', 'Marden Audio', 'Osric Furniture', 'Tamsin Toys', 'Greyfield Tools', 'Linden Stationery',
];

/**
 * Carrier booking: the cheapest carrier that meets the customer's deadline. The
 * cheapest quote overall always misses the deadline, so without the deadline
 * sentence the rule cannot be applied and any carrier could be the one.
 */
export const carrier = {
  name: 'carrier',
  domain: 'logistics',
  mode: 'choice',
  make(rng, { count, position }) {
    const customer = rng.pick(CUSTOMERS);
    const names = rng.sample(CARRIERS, count);
    const deadline = rng.int(4, 12);
    // Transit times clearly inside or clearly outside the deadline (20 % or more).
    const fast = () => rng.int(Math.max(2, Math.floor(deadline * 0.8) - 3), Math.floor(deadline * 0.8));
    const slow = () => rng.int(Math.ceil(deadline * 1.25), Math.ceil(deadline * 1.25) + 4);
    const answerPrice = rng.int(30, 180) * 5;
    const prices = [answerPrice];
    // Prices at least 8 % apart, so no two quotes look alike.
    const price = (lo, hi) =>
      redraw(() => {
        const p = roundTo(answerPrice * rng.float(lo, hi), 5);
        return prices.every((q) => Math.abs(p - q) >= 0.08 * Math.max(p, q)) ? (prices.push(p), p) : null;
      }, 'carrier price');
    const quotes = [{ days: fast(), price: answerPrice }];
    quotes.push({ days: slow(), price: price(0.55, 0.85) }); // cheapest overall, too slow
    if (count >= 3) quotes.push({ days: fast(), price: price(1.18, 1.8) }); // in time, dearer
    while (quotes.length < count) {
      quotes.push(rng.chance(0.5) ? { days: fast(), price: price(1.18, 2) } : { days: slow(), price: price(0.5, 2) });
    }
    const quote = (name, { days, price: p }) =>
      rng.pick([
        `${name} quotes ${money(p)} and takes ${days} days.`,
        `${name} would charge ${money(p)} with a transit time of ${days} days.`,
        `${name} offers delivery in ${days} days for ${money(p)}.`,
      ]);
    const decisive = rng.pick([
      `${customer} needs the goods within ${deadline} days.`,
      `${customer} has asked for delivery within ${deadline} days.`,
    ]);
    const other = rng.pick(names);
    return {
      question: rng.pick([
        `Which carrier should we book for the ${customer} shipment?`,
        `Which carrier do we book to ship the order for ${customer}?`,
      ]),
      facts: [
        rng.pick([
          'We always book the cheapest carrier that can deliver within the customer\'s deadline.',
          'Our shipping rule is to pick the lowest-priced carrier whose transit time fits the customer\'s deadline.',
          'For each shipment we choose the cheapest carrier among those that arrive within the deadline the customer gives.',
        ]),
        ...names.map((name, i) => quote(name, quotes[i])),
        decisive,
        ...distractors(rng, [
          `${other} offers online tracking.`,
          `The shipment leaves from our warehouse on the ring road.`,
          `${customer} has been a customer since last spring.`,
          `All quoted prices include fuel surcharges.`,
          `The goods are packed on a single pallet.`,
        ]),
      ],
      decisive,
      options: placeAnswer(rng, names[0], names.slice(1), position),
      answer: names[0],
    };
  },
};

const SHIPPERS = ['Brightwell Crafts', 'Corvane Outfitters', 'Tessaly Home', 'Ondra Sports', 'Pellow Books', 'Wickham Kitchenware'];
const LEVELS = [
  ['letter post', 'parcel service', 'freight'],
  ['small parcel', 'standard parcel', 'pallet freight'],
  ['courier envelope', 'courier parcel', 'freight service'],
];
// Goods and their unit weight in tenths of a kilogram.
const GOODS = [
  ['phone cases', 1], ['paperback books', 3], ['ceramic mugs', 4], ['table lamps', 15],
  ['cast iron pans', 25], ['bags of potting soil', 100], ['boxes of floor tiles', 200],
];

/**
 * Shipping class by total weight: the rule gives the bands, the contents sentence
 * gives the weight. Packaging alone is far below any band that matters, and the
 * question names the goods, so without the contents the class is unknown.
 */
export const shipclass = {
  name: 'shipclass',
  domain: 'logistics',
  mode: 'score',
  make(rng, level) {
    const shipper = rng.pick(SHIPPERS);
    const levels = rng.pick(LEVELS);
    const low = rng.pick([2, 5]); // kg
    const high = rng.pick([20, 30, 40]);
    const { goods, count, unit, packing } = redraw(() => {
      const [goods, unit] = rng.pick(GOODS);
      const packing = rng.int(2, 8); // tenths of a kilogram
      const target = [rng.float(0.25, 0.75) * low, rng.float(1.3, 0.75 * high), rng.float(1.3 * high, 3 * high)][level] * 10;
      const count = Math.round((target - packing) / unit);
      if (count < 2 || count > 150) return null;
      const total = count * unit + packing;
      // Margins of at least 20 % from either band edge, on the rounded numbers.
      const ok = [total <= 0.8 * low * 10, total >= 1.25 * low * 10 && total <= 0.8 * high * 10, total >= 1.25 * high * 10][level];
      return ok ? { goods, count, unit, packing } : null;
    }, 'shipclass weight');
    const decisive = rng.pick([
      `The package holds ${count} ${goods} weighing ${tenths(unit)} kg each.`,
      `The order is ${count} ${goods} of ${tenths(unit)} kg each.`,
    ]);
    return {
      question: `Which shipping class does ${shipper} use for this package of ${goods}?`,
      facts: [
        `${shipper} ships a package by its total weight: under ${low} kg as "${levels[0]}", from ${low} to ${high} kg as "${levels[1]}", and over ${high} kg as "${levels[2]}".`,
        decisive,
        `The box and padding add ${tenths(packing)} kg.`,
        ...distractors(rng, [
          'The customer asked for the package to be left with a neighbour if nobody is home.',
          `${shipper} prints its shipping labels in the morning.`,
          'The package goes to an address in the same country.',
          `Returns to ${shipper} are free of charge.`,
        ]),
      ],
      decisive,
      levels,
      answer: levels[level],
    };
  },
};
