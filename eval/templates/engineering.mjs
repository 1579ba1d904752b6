import { capitalize, distractors, grouped, redraw, roundTo, tenths } from './kit.mjs';

const SERVICES = [
  'the checkout service', 'the search API', 'the image resizer', 'the login service',
  'the notification gateway', 'the pricing API', 'the upload service',
];
const EVENTS = ['the spring sale', 'the product launch', 'the season opener', 'the end-of-month billing run', 'the ticket release'];

/**
 * Capacity check: servers × requests per server against the expected peak, 20 % or
 * more apart. Each of the three numbers is indispensable, so the decisive one is
 * drawn among them: the model must notice whichever is missing.
 */
export const capacity = {
  name: 'capacity',
  domain: 'engineering',
  mode: 'noul',
  make(rng, fits) {
    const service = rng.pick(SERVICES);
    const event = rng.pick(EVENTS);
    const { servers, perServer, peak } = redraw(() => {
      const servers = rng.int(3, 24);
      const perServer = rng.int(3, 24) * 50;
      const total = servers * perServer;
      const peak = roundTo(total * (fits ? rng.float(0.45, 0.8) : rng.float(1.25, 1.8)), 100);
      const ok = fits ? peak <= 0.82 * total && peak > 0 : peak >= 1.22 * total;
      return ok ? { servers, perServer, peak } : null;
    }, 'capacity peak');
    const facts = {
      perServer: `Each server of ${service} can handle about ${grouped(perServer)} requests per second.`,
      servers: `${capitalize(service)} currently runs on ${servers} servers.`,
      peak: rng.pick([
        `The expected peak during ${event} is ${grouped(peak)} requests per second.`,
        `Traffic during ${event} is forecast to peak at ${grouped(peak)} requests per second.`,
      ]),
    };
    const decisive = facts[rng.pick(['peak', 'peak', 'perServer', 'servers'])];
    return {
      question: `Can ${service} handle the expected peak during ${event} without adding servers?`,
      facts: [
        facts.perServer,
        facts.servers,
        facts.peak,
        ...distractors(rng, [
          'The servers are spread over two data centres.',
          `${capitalize(service)} was last deployed on Tuesday.`,
          `${capitalize(service)} keeps its sessions in a shared cache.`,
          'The on-call rotation changes every Monday.',
        ]),
      ],
      decisive,
      answer: fits,
    };
  },
};

const VOLUMES = [
  'the analytics database volume', 'the backup volume', 'the log archive volume',
  'the media storage volume', 'the build cache volume', 'the mail archive volume',
];
const RATINGS = [
  ['fine', 'plan an expansion', 'expand now'],
  ['green', 'amber', 'red'],
  ['low urgency', 'medium urgency', 'high urgency'],
];

/**
 * Storage headroom: months of growth the free space still covers, rated against
 * month bands. Levels run from least to most urgent, so more months means a lower
 * level. Either the capacity sentence or the growth sentence is decisive.
 */
export const headroom = {
  name: 'headroom',
  domain: 'engineering',
  mode: 'score',
  make(rng, level) {
    const volume = rng.pick(VOLUMES);
    const ratings = rng.pick(RATINGS);
    const short = 3; // months
    const long = 12;
    const { size, used, growth } = redraw(() => {
      const growth = rng.pick([5, 10, 15, 20, 25, 30, 40, 50]); // tenths of a terabyte a month
      const months = [rng.float(1.3 * long, 2.5 * long), rng.float(1.3 * short, 0.75 * long), rng.float(0.2 * short, 0.7 * short)][level];
      const free = Math.round((months * growth) / 10); // whole terabytes
      const size = [10, 20, 40, 50, 80, 100, 200].find((s) => s >= free * 1.3);
      if (!size || free < 1) return null;
      const left = (free * 10) / growth;
      const ok = [left >= 1.25 * long, left >= 1.25 * short && left <= 0.8 * long, left <= 0.8 * short][level];
      return ok ? { size, used: size - free, growth } : null;
    }, 'headroom months');
    const sizeFact = `${capitalize(volume)} holds ${size} TB, of which ${used} TB is already in use.`;
    const growthFact = rng.pick([
      `The data on ${volume} grows by about ${tenths(growth)} TB a month.`,
      `Each month about ${tenths(growth)} TB of new data lands on ${volume}.`,
    ]);
    const decisive = rng.chance(0.5) ? growthFact : sizeFact;
    return {
      question: `How does the storage team rate ${volume}?`,
      facts: [
        `The storage team rates a volume by how many months of growth its free space still covers: more than ${long} months is "${ratings[0]}", ${short} to ${long} months is "${ratings[1]}", and fewer than ${short} months is "${ratings[2]}".`,
        sizeFact,
        growthFact,
        ...distractors(rng, [
          `${capitalize(volume)} is backed up every night.`,
          'The storage team orders new disks through the purchasing department.',
          `${capitalize(volume)} was moved to faster disks last year.`,
          'The storage team reviews its volumes at the start of every quarter.',
        ]),
      ],
      decisive,
      levels: ratings,
      answer: ratings[level],
    };
  },
};
