import { distractors, listing, PEOPLE, placeAnswer } from './kit.mjs';

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const TIMES = ['09:00', '11:00', '14:00', '16:00'];
const SLOTS = DAYS.flatMap((day) => TIMES.map((time) => `${day} ${time}`)); // in time order
const MEETINGS = [
  'the quarterly planning meeting', 'the design review', 'the supplier call', 'the onboarding session',
  'the budget review', 'the launch retrospective', 'the hiring debrief',
];

const theSlots = (slots) => (slots.length === 1 ? `the ${slots[0]} slot` : `the ${listing(slots)} slots`);

/**
 * Meeting slots: the earliest offered slot all three attendees can make. The
 * decisive sentence is the only one about the third attendee, whom the rule names,
 * so without it that person's calendar is unknown. At least one other slot suits
 * the first two, so the missing calendar really could change the answer.
 */
export const slots = {
  name: 'slots',
  domain: 'scheduling',
  mode: 'choice',
  make(rng, { count, position }) {
    const [organizer, a, b, c] = rng.sample(PEOPLE, 4);
    const meeting = rng.pick(MEETINGS);
    const offered = rng.sample(SLOTS.map((_, i) => i), count).sort((x, y) => x - y).map((i) => SLOTS[i]);
    const fit = rng.int(0, count - 1);
    const busy = new Map([[a, new Set()], [b, new Set()], [c, new Set()]]);
    for (let i = 0; i < count; i++) {
      if (i < fit) {
        // Every earlier slot is ruled out by someone.
        const who = rng.sample([a, b, c], rng.int(1, 3));
        for (const person of who) busy.get(person).add(i);
      } else if (i > fit) {
        for (const person of [a, b, c]) if (rng.chance(0.3)) busy.get(person).add(i);
      }
    }
    // One slot other than the answer suits the first two and only the third attendee's
    // calendar rules it out: before the answer when there is one, after it otherwise.
    const pivot = fit > 0 ? rng.int(0, fit - 1) : rng.int(1, count - 1);
    busy.get(a).delete(pivot);
    busy.get(b).delete(pivot);
    if (fit > 0) busy.get(c).add(pivot);
    else busy.get(c).delete(pivot);

    const calendar = (person) => {
      const out = [...busy.get(person)].sort((x, y) => x - y).map((i) => offered[i]);
      if (out.length === 0) return `${person} is free at every offered slot.`;
      if (person === c && rng.chance(0.5)) {
        const can = offered.filter((_, i) => !busy.get(person).has(i));
        return `Of the offered slots, ${person} can attend only ${theSlots(can)}.`;
      }
      return rng.pick([
        `${person} cannot make ${theSlots(out)} but is free at the other offered slots.`,
        `${person} is busy during ${theSlots(out)} and free at every other offered slot.`,
      ]);
    };
    const decisive = calendar(c);
    const attendees = listing(rng.shuffle([a, b, c]));
    return {
      question: `Which slot should ${organizer} book for ${meeting}?`,
      facts: [
        rng.pick([
          `${organizer} books the earliest offered slot that ${attendees} can all attend.`,
          `${organizer} wants ${attendees} at the meeting and takes the earliest offered slot that suits all three.`,
        ]),
        `The offered slots are ${listing(offered)}.`,
        calendar(a),
        calendar(b),
        decisive,
        ...distractors(rng, [
          `The meeting will take about an hour.`,
          `${b} will join by video.`,
          'The meeting room has a large screen.',
          `${organizer} will send the agenda the day before.`,
        ]),
      ],
      decisive,
      options: placeAnswer(rng, offered[fit], offered.filter((_, i) => i !== fit), position),
      answer: offered[fit],
    };
  },
};
