import { capitalize, distractors, grouped, ladder, nice, redraw, roundTo, tenths } from './kit.mjs';

const SERVICES = [
  'the checkout service',
  'the search API',
  'the image resizer',
  'the login service',
  'the notification gateway',
  'the pricing API',
  'the upload service',
];
const EVENTS = ['the spring sale', 'the product launch', 'the season opener', 'the end-of-month billing run', 'the ticket release'];

/**
 * Capacity check: servers × requests per server against the expected peak, 20 % or
 * more apart. The members of a pair share the service, its servers and the peak and
 * differ in what one server handles, so neither the peak nor the server count alone
 * says anything; and the per-server figures of a group sit in their own window of the
 * family's ladder (30 to 90 requests a second, 90 to 270, …), so that figure alone
 * says nothing either. It lies between the server count and the peak.
 */
export const capacity = {
  name: 'capacity',
  domain: 'engineering',
  mode: 'noul',
  make(rng, _size, rung) {
    const service = rng.pick(SERVICES);
    const event = rng.pick(EVENTS);
    const [lo, hi] = ladder(rung, 30, 3);
    const { servers, peak, perServer } = redraw(() => {
      const perServer = [nice(rng.float(0.72 * hi, 0.97 * hi)), nice(rng.float(lo, 1.3 * lo))];
      const servers = rng.int(3, 24);
      // A peak that the larger figure covers with 25 % to spare and the smaller misses by 20 %.
      const peak = roundTo(rng.float((servers * perServer[1]) / 0.8, (servers * perServer[0]) / 1.25), servers * lo < 1000 ? 10 : 100);
      const ok = servers * perServer[0] >= 1.25 * peak && servers * perServer[1] <= 0.8 * peak;
      return ok && perServer[1] >= lo && perServer[0] < hi && perServer[1] > servers && perServer[0] < peak
        ? { servers, peak, perServer }
        : null;
    }, 'capacity per server');
    const handles = rng.pick([
      (n) => `Each server of ${service} can handle about ${grouped(n)} requests per second.`,
      (n) => `One server of ${service} copes with about ${grouped(n)} requests per second.`,
    ]);
    return {
      question: `Can ${service} handle the expected peak during ${event} without adding servers?`,
      shared: [
        `${capitalize(service)} currently runs on ${servers} servers.`,
        rng.pick([
          `The expected peak during ${event} is ${grouped(peak)} requests per second.`,
          `Traffic during ${event} is forecast to peak at ${grouped(peak)} requests per second.`,
        ]),
        ...distractors(rng, [
          'The servers are spread over two data centres.',
          `${capitalize(service)} was last deployed on Tuesday.`,
          `${capitalize(service)} keeps its sessions in a shared cache.`,
          'The on-call rotation changes every Monday.',
        ]),
      ],
      members: perServer.map((n, i) => ({ decisive: handles(n), answer: i === 0 })),
    };
  },
};

const VOLUMES = [
  'the analytics database volume',
  'the backup volume',
  'the log archive volume',
  'the media storage volume',
  'the build cache volume',
  'the mail archive volume',
];
const RATINGS = [
  ['fine', 'plan an expansion', 'expand now'],
  ['green', 'amber', 'red'],
  ['low urgency', 'medium urgency', 'high urgency'],
];

/**
 * Storage headroom: months of growth the free space still covers, rated against
 * month bands. Levels run from least to most urgent, so more months means a lower
 * level. The members of a group share the volume, its size and its growth and differ
 * in the space in use, so the size alone says nothing. The space in use is 70 % or
 * more of the size, and sizes climb a ladder from group to group (40 or 50 TB, 80 or
 * 100, 160 or 200), so the space in use alone says nothing either. Months stay 20 %
 * or more inside their band.
 */
export const headroom = {
  name: 'headroom',
  domain: 'engineering',
  mode: 'score',
  make(rng, _size, rung) {
    const volume = rng.pick(VOLUMES);
    const ratings = rng.pick(RATINGS);
    const short = 3; // months
    const long = 12;
    const { size, growth, used } = redraw(() => {
      const size = rng.pick(
        [
          [40, 50],
          [80, 100],
          [160, 200],
        ][rung],
      );
      const growth = rng.int(4, Math.floor(size / 5)); // tenths of a terabyte a month
      const bands = [(m) => m >= 1.25 * long, (m) => m >= 1.25 * short && m <= 0.8 * long, (m) => m <= 0.8 * short];
      // Whole terabytes in use, from 70 % of the size up.
      const used = bands.map((fits) => {
        const all = Array.from({ length: size - Math.ceil(0.7 * size) }, (_, i) => Math.ceil(0.7 * size) + i).filter((u) =>
          fits(((size - u) * 10) / growth),
        );
        return all.length ? rng.pick(all) : null;
      });
      return used.every((u) => u !== null) ? { size, growth, used } : null;
    }, 'headroom months');
    const inUse = rng.pick([
      (u) => `${capitalize(volume)} already has ${u} TB in use.`,
      (u) => `Data already takes up ${u} TB of ${volume}.`,
    ]);
    return {
      question: `How does the storage team rate ${volume}?`,
      shared: [
        `The storage team rates a volume by how many months of growth its free space still covers: more than ${long} months is "${ratings[0]}", ${short} to ${long} months is "${ratings[1]}", and fewer than ${short} months is "${ratings[2]}".`,
        `${capitalize(volume)} holds ${size} TB in total.`,
        rng.pick([
          `The data on ${volume} grows by about ${tenths(growth)} TB a month.`,
          `Each month about ${tenths(growth)} TB of new data lands on ${volume}.`,
        ]),
        ...distractors(rng, [
          `${capitalize(volume)} is backed up every night.`,
          'The storage team orders new disks through the purchasing department.',
          `${capitalize(volume)} was moved to faster disks last year.`,
          'The storage team reviews its volumes at the start of every quarter.',
        ]),
      ],
      levels: ratings,
      members: used.map((u, level) => ({ decisive: inUse(u), answer: ratings[level] })),
    };
  },
};
