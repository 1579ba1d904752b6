import { capitalize, clock, distractors, grouped, ladder, PEOPLE, redraw, tenths } from './kit.mjs';

const TRIPS = [
  { place: 'railway station', event: 'the train leaves', fact: (p, t) => `${p}'s train leaves at ${t}.`, buffers: [10, 15] },
  { place: 'airport', event: 'check-in closes', fact: (p, t) => `Check-in for ${p}'s flight closes at ${t}.`, buffers: [15, 20] },
  { place: 'ferry terminal', event: 'the ferry departs', fact: (p, t) => `${p}'s ferry departs at ${t}.`, buffers: [10, 20] },
  {
    place: 'concert hall',
    event: 'the doors close',
    fact: (p, t) => `The doors of the concert hall close at ${t} for ${p}'s concert.`,
    buffers: [10, 15],
  },
];

/**
 * Bus timing, a trade-off between waiting and missing out: the latest bus that still
 * arrives a set time before the event. The members of a group share the buses and
 * differ in the event's time, so each bus is the answer once; arrivals are 6 minutes
 * or more from the cut-off on either side.
 */
export const bus = {
  name: 'bus',
  domain: 'everyday',
  mode: 'choice',
  make(rng, count) {
    const person = rng.pick(PEOPLE);
    const trip = rng.pick(TRIPS);
    const buffer = rng.pick(trip.buffers);
    const departures = [rng.int(7 * 12, 16 * 12) * 5];
    const arrivals = [departures[0] + rng.int(20, 45)];
    while (departures.length < count) {
      const departure = departures.at(-1) + rng.int(3, 6) * 5;
      // Arrivals keep the departure order, 12 minutes or more apart.
      const arrival = redraw(() => {
        const a = departure + rng.int(20, 45);
        return a >= arrivals.at(-1) + 12 ? a : null;
      }, 'bus arrival');
      departures.push(departure);
      arrivals.push(arrival);
    }
    const names = departures.map((d) => `${clock(d)} bus`);
    const members = names.map((name, fit) => {
      const slack = fit === count - 1 ? rng.int(6, 25) : rng.int(6, arrivals[fit + 1] - arrivals[fit] - 6);
      const eventTime = arrivals[fit] + slack + buffer;
      const latest = arrivals.findLastIndex((a) => a + buffer <= eventTime);
      if (latest !== fit) throw new Error(`bus: the latest bus in time is ${names[latest]}, not ${name}`);
      return { decisive: trip.fact(person, clock(eventTime)), answer: name };
    });
    return {
      question: `Which bus should ${person} take to the ${trip.place}?`,
      shared: [
        `${person} takes the latest bus that still reaches the ${trip.place} at least ${buffer} minutes before ${trip.event}.`,
        ...names.map((name, i) => `The ${name} reaches the ${trip.place} at ${clock(arrivals[i])}.`),
        ...distractors(rng, [
          `All of these buses stop outside ${person}'s building.`,
          'A single ticket costs the same on every bus.',
          `${person} has already bought a ticket.`,
          `The buses have free wifi.`,
        ]),
      ],
      options: names,
      members,
    };
  },
};

// Materials: what one unit covers is the decisive fact; how it is packed; how many coats.
const MATERIALS = [
  {
    noun: 'paint',
    job: 'the walls',
    unit: 'litre',
    units: 'litres',
    pack: 'tins',
    coats: 2,
    rate: (p, c) => `The paint ${p} bought covers about ${c} square metres per litre and coat.`,
    coatsFact: 'The walls need two coats.',
    area: (p, a) => `The walls ${p} wants to paint measure ${a} square metres in total.`,
  },
  {
    noun: 'wood stain',
    job: 'the fence',
    unit: 'litre',
    units: 'litres',
    pack: 'cans',
    coats: 2,
    rate: (p, c) => `The stain ${p} bought covers about ${c} square metres per litre and coat.`,
    coatsFact: 'The fence needs two coats.',
    area: (p, a) => `The side of the fence ${p} is staining measures ${a} square metres.`,
  },
  {
    noun: 'lawn seed',
    job: 'the new lawn',
    unit: 'kilogram',
    units: 'kilograms',
    pack: 'bags',
    coats: 1,
    rate: (p, c) => `The seed mix ${p} bought is enough for about ${c} square metres per kilogram.`,
    coatsFact: null,
    area: (p, a) => `The new lawn ${p} is sowing measures ${a} square metres.`,
  },
];

/**
 * Enough material: packs × size × coverage ÷ coats against the area to cover. The
 * members of a pair share the supplies and the area and differ in how far the
 * product goes, so the area or the supplies alone say nothing; the coverages of a
 * pair sit in their own window of the family's ladder (4 to 7.6 square metres a unit,
 * 7.6 to 14.4, … — paint and stain low, lawn seed high), so a coverage alone says
 * nothing either. The supplies cover 20 % or more than the area, or 20 % or less.
 */
export const paint = {
  name: 'paint',
  domain: 'everyday',
  mode: 'noul',
  make(rng, _size, rung) {
    const person = rng.pick(PEOPLE);
    const m = rung < 2 ? rng.pick(MATERIALS.slice(0, 2)) : MATERIALS[2];
    const [lo, hi] = ladder(rung, 4, 1.9);
    const { packs, size, area, rates } = redraw(() => {
      const packs = rng.int(1, 6);
      const size = rng.pick([10, 25, 50]); // tenths of a unit
      const short = rng.int(Math.ceil(lo), Math.floor(1.25 * lo));
      const enough = rng.int(Math.ceil(0.8 * hi), Math.ceil(hi) - 1);
      // The area that the short rate misses by 20 % and the long rate covers with 20 % to spare.
      const least = Math.ceil((short * packs * size) / (8 * m.coats));
      const most = Math.floor((enough * packs * size) / (12.5 * m.coats));
      if (least > most || most < 4) return null;
      const area = rng.int(Math.max(least, 4), most);
      // Neither rate may be the smallest or largest number in the context: the supplies and the area bracket them.
      const shared = [packs === 1 ? null : packs, size / 10, area].filter((n) => n !== null);
      const inside = (c) => c >= Math.min(...shared) && c <= Math.max(...shared);
      return inside(short) && inside(enough) ? { packs, size, area, rates: [enough, short] } : null;
    }, 'paint rates');
    const one = packs === 1;
    const covers = (c) => (packs * size * c) / (10 * m.coats);
    if (!(covers(rates[0]) >= 1.25 * area && covers(rates[1]) <= 0.8 * area)) throw new Error('paint: margins');
    return {
      question: rng.pick([
        `Does ${person} have enough ${m.noun} for ${m.job} without buying more?`,
        `Will the ${m.noun} ${person} already has be enough for ${m.job}?`,
      ]),
      shared: [
        ...(m.coatsFact ? [m.coatsFact] : []),
        `${person} has ${one ? 'one' : packs} ${one ? m.pack.slice(0, -1) : m.pack} of ${tenths(size)} ${size === 10 ? m.unit : m.units}${one ? '' : ' each'}.`,
        m.area(person, grouped(area)),
        ...distractors(rng, [
          `The hardware store nearby is open on Saturdays.`,
          `${person} plans to do the job over the weekend.`,
          `${person} borrowed the tools from a neighbour.`,
          `The forecast for the weekend is dry.`,
        ]),
      ],
      members: rates.map((c, i) => ({ decisive: m.rate(person, c), answer: i === 0 })),
    };
  },
};

const PLACES = ['the lake house', 'the coast', 'the ski lodge', 'the family farm', 'the trade fair', 'the national park'];

/**
 * Range: litres in the tank ÷ consumption per 100 km against the trip's distance. The
 * members of a pair share the car and its fuel and differ in the trip's length, so the
 * fuel or the consumption alone says nothing; the distances of a pair sit in their
 * own window of the family's ladder (40 to 88 km, 88 to 194, …), so a distance alone
 * says nothing either. The fuel covers the trip with 25 % to spare, or falls 20 % or
 * more short. The odometer is a bystander with the largest number.
 */
export const fuel = {
  name: 'fuel',
  domain: 'everyday',
  mode: 'noul',
  make(rng, _size, rung) {
    const person = rng.pick(PEOPLE);
    const place = rng.pick(PLACES);
    const [lo, hi] = ladder(rung, 40, 2.2);
    const { use, litres, distances } = redraw(() => {
      const distances = [rng.int(Math.ceil(lo), Math.floor(1.15 * lo)), rng.int(Math.ceil(0.85 * hi), Math.ceil(hi) - 1)];
      const use = rng.int(45, 95); // tenths of a litre per 100 km
      // Fuel for a range 25 % beyond the short trip and 20 % short of the long one.
      const litres = rng.int(Math.ceil((1.25 * distances[0] * use) / 1000), Math.floor((0.8 * distances[1] * use) / 1000));
      const range = (litres * 1000) / use;
      const ok = range >= 1.25 * distances[0] && range <= 0.8 * distances[1];
      return ok && litres >= 2 ? { use, litres, distances } : null;
    }, 'fuel distances');
    const odometer = rng.int(12, 190) * 1000 + rng.int(0, 999);
    const drive = rng.pick([
      (d) => `The drive from ${person}'s home to ${place} is ${d} km.`,
      (d) => `${capitalize(place)} is ${d} km from ${person}'s home by road.`,
    ]);
    return {
      question: rng.pick([
        `Can ${person} drive to ${place} without stopping for fuel?`,
        `Does ${person} have enough fuel to reach ${place} without refuelling?`,
      ]),
      shared: [
        `${person}'s car uses about ${tenths(use)} litres of fuel per 100 km.`,
        rng.pick([
          `The fuel gauge shows about ${litres} litres left in the tank.`,
          `${person}'s tank holds about ${litres} litres of fuel right now.`,
        ]),
        `The odometer of ${person}'s car reads ${grouped(odometer)} km.`,
        ...distractors(rng, [
          `${person} is driving alone.`,
          'The motorway has no tolls on that stretch.',
          `${person} plans to leave early in the morning.`,
          `The car was serviced last month.`,
        ]),
      ],
      members: distances.map((d, i) => ({ decisive: drive(d), answer: i === 0 })),
    };
  },
};
