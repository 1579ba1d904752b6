import { capitalize, distractors, grouped, ladder, money, nice, redraw, roundTo } from './kit.mjs';

const SCHEMES = [
  ['Basic', 'Starter', 'Team', 'Business', 'Scale', 'Enterprise'],
  ['Solo', 'Small', 'Standard', 'Plus', 'Pro', 'Max'],
  ['Bronze', 'Silver', 'Gold', 'Platinum', 'Diamond', 'Titanium'],
];
const TOOLS = ['Taskwell', 'Notely', 'Shiftly', 'Ledgerly', 'Pixlo', 'Chartwise', 'Roomly', 'Formbay'];
const TEAMS = [
  'the support team',
  'the design studio',
  'the Harbour Street office',
  'the field sales team',
  'the finance team',
  'the events crew',
  'the warehouse office',
  'the research group',
];

/** A round seat cap: 5, 10, 15, 25, 40, … so that caps read like real price lists. */
function niceCap(x) {
  if (x <= 20) return roundTo(x, 5);
  if (x <= 100) return roundTo(x, 10);
  if (x <= 500) return roundTo(x, 50);
  return roundTo(x, 100);
}

/**
 * Plan sizing: the cheapest plan whose user limit covers the team. Prices rise with
 * the limits, so the answer is the smallest plan that fits, and the members of a
 * group differ only in the team's head count, which makes each plan the answer once.
 * Head counts stay 20 % or more away from every limit.
 */
export const plan = {
  name: 'plan',
  domain: 'product',
  mode: 'choice',
  make(rng, count) {
    const tool = rng.pick(TOOLS);
    const team = rng.pick(TEAMS);
    const names = rng.pick(SCHEMES).slice(0, count);
    const caps = [rng.pick([5, 10])];
    const prices = [rng.int(2, 8) * 5];
    while (caps.length < count) {
      caps.push(niceCap(caps.at(-1) * rng.float(2, 3)));
      prices.push(roundTo(prices.at(-1) * rng.float(1.6, 2.4), 5));
    }
    const needs = rng.pick([
      (users) => `${capitalize(team)} has ${users} people who need a ${tool} account.`,
      (users) => `Exactly ${users} people in ${team} will use ${tool}.`,
    ]);
    const members = names.map((name, fit) => {
      const lowest = fit === 0 ? 2 : Math.ceil(caps[fit - 1] * 1.2);
      const users = rng.int(lowest, Math.floor(caps[fit] * 0.8));
      const smallest = caps.findIndex((cap) => cap >= users);
      if (smallest !== fit) throw new Error(`plan: ${users} users fit ${names[smallest]}, not ${name}`);
      return { decisive: needs(users), answer: `${name} plan` };
    });
    const sample = rng.pick(names);
    return {
      question: rng.pick([`Which ${tool} plan should ${team} buy?`, `Which ${tool} plan is the right one for ${team}?`]),
      shared: [
        rng.pick([
          `${capitalize(team)} buys the cheapest ${tool} plan whose user limit covers everyone who needs an account.`,
          `The rule for ${team} is to take the lowest-priced ${tool} plan that has room for every user.`,
        ]),
        ...names.map((name, i) => `The ${name} plan costs ${money(prices[i])} a month and allows up to ${grouped(caps[i])} users.`),
        ...distractors(rng, [
          `The ${sample} plan also includes single sign-on.`,
          `${tool} offers a free trial to new customers.`,
          `${capitalize(team)} already uses a separate chat tool.`,
          `Every ${tool} plan is billed monthly.`,
        ]),
      ],
      options: names.map((n) => `${n} plan`),
      members,
    };
  },
};

const APPS = [
  'the Tidewell mobile app',
  'the Corvane web dashboard',
  'the Pebblo booking site',
  'the Marlow recipe app',
  'the Fennick budgeting app',
  'the Quill notes app',
];
const BUGS = [
  'login timeout',
  'broken search filter',
  'missing receipt email',
  'slow photo upload',
  'wrong currency symbol',
  'duplicate notification',
];
const RATINGS = [
  ['low priority', 'medium priority', 'high priority'],
  ['minor', 'major', 'critical'],
  ['low', 'medium', 'high'],
];

/**
 * Bug priority by the share of active users affected: the rule needs both counts. The
 * members of a group share the app and its active users and differ in how many users
 * the bug hits, so each rating is right once; the counts of a group sit in their own
 * window of the family's ladder (30 to 360 users, 360 to 4,320, …), with apps as large
 * as that takes, so a count alone says nothing. Shares stay 20 % or more away from
 * the band edges, so the division need not be exact to be right.
 */
export const priority = {
  name: 'priority',
  domain: 'product',
  mode: 'score',
  make(rng, _size, rung) {
    const app = rng.pick(APPS);
    const bug = rng.pick(BUGS);
    const ratings = rng.pick(RATINGS);
    const [lo, hi] = ladder(rung, 30, 12);
    const { low, high, active, affected } = redraw(() => {
      const [low, high] = rng.pick([
        [1, 4],
        [2, 6],
        [1, 5],
        [3, 10],
      ]); // percent
      const shares = [rng.float(0.5, 0.75) * low, rng.float(1.35 * low, 0.75 * high), rng.float(1.3, 1.5) * high];
      const active = nice((rng.float(lo, 1.1 * lo) * 100) / shares[0]);
      const affected = shares.map((share) => nice((share * active) / 100));
      const percent = affected.map((n) => (n * 100) / active);
      const ok = percent[0] <= 0.8 * low && percent[1] >= 1.25 * low && percent[1] <= 0.8 * high && percent[2] >= 1.25 * high;
      return ok && affected.every((n) => n >= lo && n < hi) ? { low, high, active, affected } : null;
    }, 'priority share');
    const hits = rng.pick([
      (n) => `The ${bug} bug affects about ${grouped(n)} users.`,
      (n) => `Support estimates that the ${bug} bug hits about ${grouped(n)} users.`,
    ]);
    return {
      question: `How should the product team rate the ${bug} bug in ${app}?`,
      shared: [
        `The product team rates a bug by the share of active users it affects: under ${low}% is "${ratings[0]}", from ${low}% to ${high}% is "${ratings[1]}", and over ${high}% is "${ratings[2]}".`,
        `${capitalize(app)} has ${grouped(active)} active users.`,
        ...distractors(rng, [
          `The ${bug} bug was first reported on a Monday.`,
          `${capitalize(app)} had its last release two weeks ago.`,
          'The product team meets on Thursdays to review bugs.',
          `A fix for the ${bug} bug has not been estimated yet.`,
        ]),
      ],
      levels: ratings,
      members: affected.map((n, level) => ({ decisive: hits(n), answer: ratings[level] })),
    };
  },
};
