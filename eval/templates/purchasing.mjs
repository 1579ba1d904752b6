import { distractors, money, PEOPLE, redraw } from './kit.mjs';

const COMPANIES = ['Corvane', 'Brightwell', 'Tessaly', 'Ondra Labs', 'Pellow and Finch', 'Marrick Studio'];
const GOODS = [
  ['ergonomic chairs', [180, 420]], ['laptop docks', [90, 240]], ['monitor arms', [40, 130]], ['label printers', [60, 180]],
  ['whiteboards', [70, 200]], ['headsets', [30, 150]], ['desk lamps', [20, 80]], ['storage cabinets', [150, 480]],
];
const DEPARTMENTS = ['support', 'design', 'warehouse', 'accounts', 'training', 'facilities'];

/**
 * Approval limit: quantity × unit price against the team lead's limit, 20 % or more
 * apart. The rule sentence names the limit without its value, so the limit
 * sentence or the order sentence, whichever is decisive, leaves the question open.
 */
export const approval = {
  name: 'approval',
  domain: 'purchasing',
  mode: 'noul',
  make(rng, withinLimit) {
    const company = rng.pick(COMPANIES);
    const lead = rng.pick(PEOPLE);
    const [goods, [cheapest, dearest]] = rng.pick(GOODS);
    const { limit, quantity, unit } = redraw(() => {
      const limit = rng.pick([500, 1000, 1500, 2000, 2500, 5000, 10000]);
      const unit = rng.int(cheapest / 5, dearest / 5) * 5;
      const quantity = Math.round((limit * (withinLimit ? rng.float(0.4, 0.78) : rng.float(1.28, 2.2))) / unit);
      const total = quantity * unit;
      const ok = withinLimit ? total <= 0.8 * limit : total >= 1.25 * limit;
      return ok && quantity >= 2 && quantity <= 60 ? { limit, quantity, unit } : null;
    }, 'approval total');
    const limitFact = `The team lead approval limit at ${company} is ${money(limit)} per order.`;
    const orderFact = rng.pick([
      `${lead} wants to order ${quantity} ${goods} at ${money(unit)} each.`,
      `The order ${lead} has prepared is for ${quantity} ${goods} costing ${money(unit)} apiece.`,
    ]);
    const decisive = rng.chance(0.6) ? limitFact : orderFact;
    return {
      question: rng.pick([
        `Can ${lead} approve this order without the finance director?`,
        `May ${lead} sign off this order alone?`,
      ]),
      facts: [
        `At ${company}, a team lead may approve an order alone only if its total stays within the team lead approval limit; a larger order also needs the finance director.`,
        `${lead} is the team lead of the ${rng.pick(DEPARTMENTS)} team.`,
        orderFact,
        'The supplier charges no delivery fee or tax on top of the listed prices.',
        limitFact,
        ...distractors(rng, [
          'The supplier promises delivery within a week.',
          `${company} pays its suppliers at the end of each month.`,
          `The ${goods} will replace older ones bought several years ago.`,
          'The finance director is in the office every weekday.',
        ]),
      ],
      decisive,
      answer: withinLimit,
    };
  },
};
