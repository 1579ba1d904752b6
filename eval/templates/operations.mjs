import { capitalize, distractors, grouped, PEOPLE, redraw, roundTo, tenths } from './kit.mjs';

const article = (noun) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

const SERVICES = ['the order API', 'the payments gateway', 'the search cluster', 'the mail relay', 'the booking service', 'the file sync service'];
// Metrics with a lower and an upper threshold; values in the unit's smallest step.
const METRICS = [
  { name: 'error rate', lows: [1, 2], factor: 5, step: 0.1, show: (v) => `${tenths(Math.round(v * 10))}%` },
  { name: 'p95 latency', lows: [200, 300, 400], factor: 3, step: 10, show: (v) => `${grouped(v)} milliseconds` },
  { name: 'queue backlog', lows: [1000, 2000, 5000], factor: 5, step: 100, show: (v) => `${grouped(v)} messages` },
  { name: 'replication lag', lows: [30, 60], factor: 4, step: 1, show: (v) => `${grouped(v)} seconds` },
  { name: 'rate of failed logins', lows: [20, 50], factor: 4, step: 1, show: (v) => `${grouped(v)} a minute` },
];
const RESPONSES = [
  ['low', 'medium', 'high'],
  ['log a ticket', 'fix during working hours', 'page on-call now'],
  ['routine', 'elevated', 'critical'],
];

/**
 * Alert urgency: a policy maps ranges of a metric to responses; the measured value
 * is the decisive fact and sits 20 % or more inside its band.
 */
export const alert = {
  name: 'alert',
  domain: 'operations',
  mode: 'score',
  make(rng, level) {
    const service = rng.pick(SERVICES);
    const metric = rng.pick(METRICS);
    const responses = rng.pick(RESPONSES);
    const low = rng.pick(metric.lows);
    const high = low * metric.factor;
    const value = redraw(() => {
      const raw = [rng.float(0.3, 0.75) * low, rng.float(1.3 * low, 0.75 * high), rng.float(1.3 * high, 2.5 * high)][level];
      // Round in whole steps, then back to the unit (0.1 steps via tenths to avoid 0.30000000000000004).
      const v = metric.step < 1 ? Math.round(raw * 10) / 10 : roundTo(raw, metric.step);
      const ok = [v <= 0.8 * low && v > 0, v >= 1.25 * low && v <= 0.8 * high, v >= 1.25 * high][level];
      return ok ? v : null;
    }, 'alert value');
    const decisive = rng.pick([
      `The ${metric.name} of ${service} is currently ${metric.show(value)}.`,
      `Monitoring shows ${article(metric.name)} of ${metric.show(value)} for ${service}.`,
    ]);
    return {
      question: `What response does the current ${metric.name} of ${service} call for under the on-call policy?`,
      facts: [
        `The on-call policy for ${service} treats ${article(metric.name)} below ${metric.show(low)} as "${responses[0]}", from ${metric.show(low)} to ${metric.show(high)} as "${responses[1]}", and above ${metric.show(high)} as "${responses[2]}".`,
        decisive,
        ...distractors(rng, [
          `${capitalize(service)} was last deployed on Wednesday.`,
          `${capitalize(service)} runs in three regions.`,
          `The on-call engineer this week is ${rng.pick(PEOPLE)}.`,
          `Dashboards for ${service} refresh every minute.`,
        ]),
      ],
      decisive,
      levels: responses,
      answer: responses[level],
    };
  },
};

const STOCK = ['rolls of packing tape', 'shipping boxes', 'packs of cable ties', 'toner cartridges', 'hand soap refills', 'rolls of bubble wrap', 'boxes of printer paper'];
const SITES = ['the Eastfield warehouse', 'the Northgate depot', 'the Riverside store room', 'the Millbrook warehouse'];

/**
 * Reorder point: reorder when stock on hand covers fewer than W weeks of demand.
 * Stock and weekly demand are both needed, so either can be the decisive fact; a
 * fixed sentence says nothing is on order, so pending deliveries cannot muddy it.
 */
export const reorder = {
  name: 'reorder',
  domain: 'operations',
  mode: 'noul',
  make(rng, reorderNow) {
    const item = rng.pick(STOCK);
    const site = rng.pick(SITES);
    const weeks = rng.pick([2, 3, 4, 6]);
    const { weekly, onHand } = redraw(() => {
      const weekly = rng.int(2, 40) * 10;
      const point = weeks * weekly;
      const onHand = roundTo(point * (reorderNow ? rng.float(0.2, 0.75) : rng.float(1.3, 2.5)), 10);
      const ok = reorderNow ? onHand <= 0.8 * point && onHand > 0 : onHand >= 1.25 * point;
      return ok ? { weekly, onHand } : null;
    }, 'reorder stock');
    const stockFact = `${capitalize(site)} has ${grouped(onHand)} ${item} on hand.`;
    const demandFact = rng.pick([
      `The usual demand for ${item} at ${site} is about ${grouped(weekly)} a week.`,
      `Demand for ${item} at ${site} runs at about ${grouped(weekly)} a week.`,
    ]);
    const decisive = rng.chance(0.6) ? stockFact : demandFact;
    return {
      question: rng.pick([`Should ${site} reorder ${item} now?`, `Is it time for ${site} to reorder ${item}?`]),
      facts: [
        `${capitalize(site)} reorders an item as soon as its stock on hand would last fewer than ${weeks} weeks at the usual demand.`,
        stockFact,
        demandFact,
        `No order for ${item} is on its way yet.`,
        ...distractors(rng, [
          `The ${item} are stored in the back aisle.`,
          `${capitalize(site)} is closed on public holidays.`,
          'The supplier sends its invoices once a month.',
          `${capitalize(site)} counted its stock this morning.`,
        ]),
      ],
      decisive,
      answer: reorderNow,
    };
  },
};
