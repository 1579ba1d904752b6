import { capitalize, distractors, grouped, money, placeAnswer, redraw, roundTo } from './kit.mjs';

const SCHEMES = [
  ['Basic', 'Starter', 'Team', 'Business', 'Scale', 'Enterprise'],
  ['Solo', 'Small', 'Standard', 'Plus', 'Pro', 'Max'],
  ['Bronze', 'Silver', 'Gold', 'Platinum', 'Diamond', 'Titanium'],
];
const TOOLS = ['Taskwell', 'Notely', 'Shiftly', 'Ledgerly', 'Pixlo', 'Chartwise', 'Roomly', 'Formbay'];
const TEAMS = [
  'the support team', 'the design studio', 'the Harbour Street office', 'the field sales team',
  'the finance team', 'the events crew', 'the warehouse office', 'the research group',
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
 * the limits, so the answer is the smallest plan that fits; the team's head count,
 * kept 20 % or more away from every limit, is the only fact that says which one.
 */
export const plan = {
  name: 'plan',
  domain: 'product',
  mode: 'choice',
  make(rng, { count, position }) {
    const tool = rng.pick(TOOLS);
    const team = rng.pick(TEAMS);
    const names = rng.pick(SCHEMES).slice(0, count);
    const caps = [rng.pick([5, 10])];
    const prices = [rng.int(2, 8) * 5];
    while (caps.length < count) {
      caps.push(niceCap(caps.at(-1) * rng.float(2, 3)));
      prices.push(roundTo(prices.at(-1) * rng.float(1.6, 2.4), 5));
    }
    const fit = rng.int(0, count - 1);
    const lowest = fit === 0 ? 2 : Math.ceil(caps[fit - 1] * 1.2);
    const users = rng.int(lowest, Math.floor(caps[fit] * 0.8));
    const decisive = rng.pick([
      `${capitalize(team)} has ${users} people who need a ${tool} account.`,
      `Exactly ${users} people in ${team} will use ${tool}.`,
    ]);
    const sample = rng.pick(names);
    return {
      question: rng.pick([`Which ${tool} plan should ${team} buy?`, `Which ${tool} plan is the right one for ${team}?`]),
      facts: [
        rng.pick([
          `${capitalize(team)} buys the cheapest ${tool} plan whose user limit covers everyone who needs an account.`,
          `The rule for ${team} is to take the lowest-priced ${tool} plan that has room for every user.`,
        ]),
        ...names.map((name, i) => `The ${name} plan costs ${money(prices[i])} a month and allows up to ${grouped(caps[i])} users.`),
        decisive,
        ...distractors(rng, [
          `The ${sample} plan also includes single sign-on.`,
          `${tool} offers a free trial to new customers.`,
          `${capitalize(team)} already uses a separate chat tool.`,
          `Every ${tool} plan is billed monthly.`,
        ]),
      ],
      decisive,
      options: placeAnswer(rng, `${names[fit]} plan`, names.filter((_, i) => i !== fit).map((n) => `${n} plan`), position),
      answer: `${names[fit]} plan`,
    };
  },
};

const APPS = [
  'the Tidewell mobile app', 'the Corvane web dashboard', 'the Pebblo booking site', 'the Marlow recipe app',
  'the Fennick budgeting app', 'the Quill notes app',
];
const BUGS = [
  'login timeout', 'broken search filter', 'missing receipt email', 'slow photo upload',
  'wrong currency symbol', 'duplicate notification',
];
const RATINGS = [
  ['low priority', 'medium priority', 'high priority'],
  ['minor', 'major', 'critical'],
  ['low', 'medium', 'high'],
];

/**
 * Bug priority by the share of active users affected: the rule needs two counts,
 * and either one, cut out, leaves the share unknown. Shares stay 20 % or more away
 * from the band edges, so the division need not be exact to be right.
 */
export const priority = {
  name: 'priority',
  domain: 'product',
  mode: 'score',
  make(rng, level) {
    const app = rng.pick(APPS);
    const bug = rng.pick(BUGS);
    const ratings = rng.pick(RATINGS);
    const low = rng.pick([1, 2]); // percent
    const high = rng.pick([10, 15]);
    const { active, affected } = redraw(() => {
      const active = rng.pick([20000, 40000, 60000, 80000, 120000, 250000]);
      const share = [rng.float(0.2, 0.75) * low, rng.float(1.3 * low, 0.75 * high), rng.float(1.3 * high, 3 * high)][level];
      const raw = (share / 100) * active;
      const affected = raw < 1000 ? roundTo(raw, 10) : roundTo(raw, 100);
      const percent = (affected * 100) / active;
      const ok = [percent <= 0.8 * low, percent >= 1.25 * low && percent <= 0.8 * high, percent >= 1.25 * high][level];
      return ok && affected > 0 ? { active, affected } : null;
    }, 'priority share');
    const activeFact = `${capitalize(app)} has ${grouped(active)} active users.`;
    const affectedFact = rng.pick([
      `The ${bug} bug affects about ${grouped(affected)} users.`,
      `Support estimates that the ${bug} bug hits about ${grouped(affected)} users.`,
    ]);
    const decisive = rng.chance(0.65) ? affectedFact : activeFact;
    return {
      question: `How should the product team rate the ${bug} bug in ${app}?`,
      facts: [
        `The product team rates a bug by the share of active users it affects: under ${low}% is "${ratings[0]}", from ${low}% to ${high}% is "${ratings[1]}", and over ${high}% is "${ratings[2]}".`,
        activeFact,
        affectedFact,
        ...distractors(rng, [
          `The ${bug} bug was first reported on a Monday.`,
          `${capitalize(app)} had its last release two weeks ago.`,
          'The product team meets on Thursdays to review bugs.',
          `A fix for the ${bug} bug has not been estimated yet.`,
        ]),
      ],
      decisive,
      levels: ratings,
      answer: ratings[level],
    };
  },
};
