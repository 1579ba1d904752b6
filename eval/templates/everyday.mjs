import { clock, distractors, grouped, PEOPLE, placeAnswer, redraw, tenths } from './kit.mjs';

const TRIPS = [
  { place: 'railway station', event: 'the train leaves', fact: (p, t) => `${p}'s train leaves at ${t}.`, buffers: [10, 15] },
  { place: 'airport', event: 'check-in closes', fact: (p, t) => `Check-in for ${p}'s flight closes at ${t}.`, buffers: [15, 20] },
  { place: 'ferry terminal', event: 'the ferry departs', fact: (p, t) => `${p}'s ferry departs at ${t}.`, buffers: [10, 20] },
  { place: 'concert hall', event: 'the doors close', fact: (p, t) => `The doors of the concert hall close at ${t} for ${p}'s concert.`, buffers: [10, 15] },
];

/**
 * Bus timing, a trade-off between waiting and missing out: the latest bus that
 * still arrives a set time before the event. Arrivals are 6 minutes or more from
 * the cut-off on either side; without the event's time any bus could be it.
 */
export const bus = {
  name: 'bus',
  domain: 'everyday',
  mode: 'choice',
  make(rng, { count, position }) {
    const person = rng.pick(PEOPLE);
    const trip = rng.pick(TRIPS);
    const buffer = rng.pick(trip.buffers);
    const departures = [rng.int(7 * 12, 17 * 12) * 5];
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
    const fit = rng.int(0, count - 1);
    const slack = fit === count - 1 ? rng.int(6, 25) : rng.int(6, arrivals[fit + 1] - arrivals[fit] - 6);
    const eventTime = arrivals[fit] + slack + buffer;
    const names = departures.map((d) => `${clock(d)} bus`);
    const decisive = trip.fact(person, clock(eventTime));
    return {
      question: `Which bus should ${person} take to the ${trip.place}?`,
      facts: [
        `${person} takes the latest bus that still reaches the ${trip.place} at least ${buffer} minutes before ${trip.event}.`,
        ...names.map((name, i) => `The ${name} reaches the ${trip.place} at ${clock(arrivals[i])}.`),
        decisive,
        ...distractors(rng, [
          `All of these buses stop outside ${person}'s building.`,
          'A single ticket costs the same on every bus.',
          `${person} has already bought a ticket.`,
          `The buses have free wifi.`,
        ]),
      ],
      decisive,
      options: placeAnswer(rng, names[fit], names.filter((_, i) => i !== fit), position),
      answer: names[fit],
    };
  },
};

// Materials: how much one unit covers, how it is packed, whether it needs two coats.
const MATERIALS = [
  {
    noun: 'paint', job: 'the walls', unit: 'litre', units: 'litres', pack: 'tins', coverage: [8, 10, 12], coats: 2,
    rate: (c) => `One litre of the paint covers about ${c} square metres per coat.`,
    coatsFact: 'The walls need two coats.',
    area: (p, a) => `The walls ${p} wants to paint measure ${a} square metres in total.`,
  },
  {
    noun: 'lawn seed', job: 'the new lawn', unit: 'kilogram', units: 'kilograms', pack: 'bags', coverage: [20, 25, 40], coats: 1,
    rate: (c) => `One kilogram of the seed is enough for about ${c} square metres.`,
    coatsFact: null,
    area: (p, a) => `The new lawn ${p} is sowing measures ${a} square metres.`,
  },
  {
    noun: 'wood stain', job: 'the fence', unit: 'litre', units: 'litres', pack: 'cans', coverage: [6, 8, 10], coats: 2,
    rate: (c) => `One litre of the stain covers about ${c} square metres per coat.`,
    coatsFact: 'The fence needs two coats.',
    area: (p, a) => `The side of the fence ${p} is staining measures ${a} square metres.`,
  },
];

/**
 * Enough material: packs × size × coverage ÷ coats against the area to cover. The
 * area and the supplies on hand are each indispensable; whichever is decisive, the
 * other is at least 20 % away from the break-even point.
 */
export const paint = {
  name: 'paint',
  domain: 'everyday',
  mode: 'noul',
  make(rng, enough) {
    const person = rng.pick(PEOPLE);
    const m = rng.pick(MATERIALS);
    const coverage = rng.pick(m.coverage);
    const { packs, size, area } = redraw(() => {
      const packs = rng.int(1, 6);
      const size = rng.pick([10, 25, 50]); // tenths of a unit
      const covers = (packs * size * coverage) / (10 * m.coats);
      const area = Math.round(covers * (enough ? rng.float(0.45, 0.8) : rng.float(1.25, 1.9)));
      const ok = enough ? area <= 0.82 * covers && area >= 4 : area >= 1.22 * covers;
      return ok ? { packs, size, area } : null;
    }, 'paint area');
    const one = packs === 1;
    const supply = `${person} has ${one ? 'one' : packs} ${one ? m.pack.slice(0, -1) : m.pack} of ${tenths(size)} ${size === 10 ? m.unit : m.units}${one ? '' : ' each'}.`;
    const areaFact = m.area(person, grouped(area));
    const decisive = rng.chance(0.6) ? areaFact : supply;
    return {
      question: rng.pick([
        `Does ${person} have enough ${m.noun} for ${m.job} without buying more?`,
        `Will the ${m.noun} ${person} already has be enough for ${m.job}?`,
      ]),
      facts: [
        m.rate(coverage),
        ...(m.coatsFact ? [m.coatsFact] : []),
        supply,
        areaFact,
        ...distractors(rng, [
          `The hardware store nearby is open on Saturdays.`,
          `${person} plans to do the job over the weekend.`,
          `${person} borrowed the tools from a neighbour.`,
          `The forecast for the weekend is dry.`,
        ]),
      ],
      decisive,
      answer: enough,
    };
  },
};
