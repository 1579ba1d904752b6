import { capitalize, distractors, grouped, ladder, nice, PEOPLE, redraw, roundTo } from './kit.mjs';

const QUEUES = [
  'the order queue',
  'the email queue',
  'the invoice queue',
  'the thumbnail queue',
  'the webhook queue',
  'the payment events queue',
];
// Minutes to clear a backlog: below the first is the lowest response, above the second the highest.
const BANDS = [
  [2, 6],
  [5, 15],
  [10, 30],
  [4, 12],
];
const RESPONSES = [
  ['low', 'medium', 'high'],
  ['log a ticket', 'fix during working hours', 'page on-call now'],
  ['routine', 'elevated', 'critical'],
];

/**
 * Backlog urgency: the minutes the consumers need to clear a queue at their current
 * rate, against the on-call policy's bands. The members of a group share the queue
 * and its backlog and differ in the consumers' rate, so each response is right once;
 * the rates of a group sit in their own window of the family's ladder (12 to 96
 * messages a second, 96 to 768, …), so a rate alone says nothing. Minutes stay 20 %
 * or more inside their band.
 */
export const alert = {
  name: 'alert',
  domain: 'operations',
  mode: 'score',
  make(rng, _size, rung) {
    const queue = rng.pick(QUEUES);
    const responses = rng.pick(RESPONSES);
    const [lo, hi] = ladder(rung, 12, 8);
    const { low, high, backlog, rates } = redraw(() => {
      const [low, high] = rng.pick(BANDS);
      // The slowest rate near the window's foot sets the backlog; the others follow from their minutes.
      const minutes = [rng.float(0.6, 0.75) * low, rng.float(1.35 * low, 0.75 * high), rng.float(1.3, 1.45) * high];
      const backlog = nice(rng.float(lo, 1.1 * lo) * 60 * minutes[2]);
      const rates = minutes.map((m) => nice(backlog / (60 * m)));
      // The bands checked on the rounded figures.
      const bands = [(m) => m <= 0.8 * low, (m) => m >= 1.25 * low && m <= 0.8 * high, (m) => m >= 1.25 * high];
      const ok = rates.every((r, level) => bands[level](backlog / (60 * r)));
      // More messages a second than the policy's minutes, so never the context's smallest number.
      return ok && rates.every((r) => r >= lo && r < hi && r > high) ? { low, high, backlog, rates } : null;
    }, 'alert rates');
    const rate = rng.pick([
      (r) => `The consumers of ${queue} are processing about ${grouped(r)} messages a second.`,
      (r) => `Monitoring shows ${queue} draining at about ${grouped(r)} messages a second.`,
    ]);
    return {
      question: rng.pick([
        `What response does the backlog of ${queue} call for under the on-call policy?`,
        `How urgent is the backlog of ${queue}?`,
      ]),
      shared: [
        `The on-call policy rates a queue backlog by the minutes needed to clear it at the current rate: under ${low} minutes is "${responses[0]}", ${low} to ${high} minutes is "${responses[1]}", and over ${high} minutes is "${responses[2]}".`,
        `${capitalize(queue)} currently holds ${grouped(backlog)} messages.`,
        ...distractors(rng, [
          `${capitalize(queue)} was last resized on Wednesday.`,
          `${capitalize(queue)} keeps messages for seven days.`,
          `The on-call engineer this week is ${rng.pick(PEOPLE)}.`,
          `Dashboards for ${queue} refresh every minute.`,
        ]),
      ],
      levels: responses,
      members: rates.map((r, level) => ({ decisive: rate(r), answer: responses[level] })),
    };
  },
};

const STOCK = [
  'rolls of packing tape',
  'shipping boxes',
  'packs of cable ties',
  'toner cartridges',
  'hand soap refills',
  'rolls of bubble wrap',
  'boxes of printer paper',
];
const SITES = ['the Eastfield warehouse', 'the Northgate depot', 'the Riverside store room', 'the Millbrook warehouse'];

/**
 * Reorder point: reorder when stock on hand covers fewer than W weeks of demand. The
 * members of a pair share the site, the rule and the stock and differ in the weekly
 * demand, so the stock alone says nothing; the demands of a pair sit in their own
 * window of the family's ladder (20 to 60 a week, 60 to 180, …), so the demand alone
 * says nothing either. A fixed sentence says nothing is on order, so pending
 * deliveries cannot muddy it. Cover is 20 % or more on either side of W.
 */
export const reorder = {
  name: 'reorder',
  domain: 'operations',
  mode: 'noul',
  make(rng, _size, rung) {
    const item = rng.pick(STOCK);
    const site = rng.pick(SITES);
    const weeks = rng.pick([3, 4, 6]);
    const [lo, hi] = ladder(rung, 20, 3);
    const { onHand, demand } = redraw(() => {
      const demand = [nice(rng.float(0.72 * hi, 0.97 * hi)), nice(rng.float(lo, 1.3 * lo))];
      const onHand = roundTo(rng.float(1.25 * weeks * demand[1], 0.8 * weeks * demand[0]), 10);
      const ok = onHand <= 0.8 * weeks * demand[0] && onHand >= 1.25 * weeks * demand[1];
      // More a week than the rule's weeks and less than the stock: never the context's extreme number.
      return ok && demand[1] >= lo && demand[0] < hi && demand[0] < onHand ? { onHand, demand } : null;
    }, 'reorder demand');
    const usual = rng.pick([
      (d) => `The usual demand for ${item} at ${site} is about ${grouped(d)} a week.`,
      (d) => `Demand for ${item} at ${site} runs at about ${grouped(d)} a week.`,
    ]);
    return {
      question: rng.pick([`Should ${site} reorder ${item} now?`, `Is it time for ${site} to reorder ${item}?`]),
      shared: [
        `${capitalize(site)} reorders an item as soon as its stock on hand would last fewer than ${weeks} weeks at the usual demand.`,
        `${capitalize(site)} has ${grouped(onHand)} ${item} on hand.`,
        `No order for ${item} is on its way yet.`,
        ...distractors(rng, [
          `The ${item} are stored in the back aisle.`,
          `${capitalize(site)} is closed on public holidays.`,
          'The supplier sends its invoices once a month.',
          `${capitalize(site)} counted its stock this morning.`,
        ]),
      ],
      members: demand.map((d, i) => ({ decisive: usual(d), answer: i === 0 })),
    };
  },
};
