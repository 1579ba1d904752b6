import { capitalize, clock, distractors, grouped, ladder, listing, nice, PEOPLE, redraw } from './kit.mjs';

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const TIMES = [9 * 60, 11 * 60, 14 * 60, 16 * 60]; // minutes after midnight
const MEETINGS = [
  'the quarterly planning meeting',
  'the design review',
  'the supplier call',
  'the onboarding session',
  'the budget review',
  'the launch retrospective',
  'the hiring debrief',
];
const PARTS = [
  { name: 'morning', from: 0, to: 12 * 60 },
  { name: 'afternoon', from: 12 * 60, to: 24 * 60 },
];

/**
 * Meeting slots: the earliest offered slot that all three attendees can make. Two
 * attendees are busy only at times when no slot is offered (they must be checked, and
 * rule nothing out); the third is away until a time that the members of a group move
 * from slot to slot, so each slot is the answer once. That sentence names no slot, so
 * how often a slot is named says nothing; without it any slot could be the one.
 */
export const slots = {
  name: 'slots',
  domain: 'scheduling',
  mode: 'choice',
  make(rng, count) {
    const [organizer, a, b, c] = rng.sample(PEOPLE, 4);
    const meeting = rng.pick(MEETINGS);
    const all = DAYS.flatMap((_, day) => TIMES.map((time) => ({ day, time })));
    const offered = rng
      .sample(
        all.map((_, i) => i),
        count,
      )
      .sort((x, y) => x - y)
      .map((i) => all[i]);
    const name = (slot) => `${DAYS[slot.day]} ${clock(slot.time)}`;
    // A half-day with no offered slot in it, for an attendee's busy time.
    const quiet = DAYS.flatMap((day, d) =>
      PARTS.filter((part) => !offered.some((s) => s.day === d && s.time >= part.from && s.time < part.to)).map(
        (part) => `${day} ${part.name}`,
      ),
    );
    const calendar = (person) =>
      rng.pick([
        `${person} is busy on ${rng.pick(quiet)} and free at every other time this week.`,
        `${person} has appointments all of ${rng.pick(quiet)} and is free otherwise.`,
      ]);
    const away = rng.pick([
      (t) => `${c} is away until ${t} and free at every offered slot after that.`,
      (t) => `${c} is travelling and back in the office from ${t}, free from then on.`,
    ]);
    const members = offered.map((slot, j) => {
      // Back an hour or half an hour before the slot: after the previous offered slot began, so that one is missed.
      const back = slot.time - rng.pick([30, 60]);
      const previous = offered[j - 1];
      if (previous && previous.day === slot.day && previous.time >= back) throw new Error('slots: return time overlaps the previous slot');
      const canMake = offered.findIndex((s) => s.day > slot.day || (s.day === slot.day && s.time >= back));
      if (canMake !== j) throw new Error(`slots: ${c} could first make ${name(offered[canMake])}, not ${name(slot)}`);
      return { decisive: away(`${DAYS[slot.day]} ${clock(back)}`), answer: name(slot) };
    });
    const attendees = listing(rng.shuffle([a, b, c]));
    return {
      question: `Which slot should ${organizer} book for ${meeting}?`,
      shared: [
        rng.pick([
          `${organizer} books the earliest offered slot that ${attendees} can all attend.`,
          `${organizer} wants ${attendees} at the meeting and takes the earliest offered slot that suits all three.`,
        ]),
        `The offered slots are ${listing(offered.map(name))}.`,
        calendar(a),
        calendar(b),
        ...distractors(rng, [
          `The meeting will take about an hour.`,
          `${b} will join by video.`,
          'The meeting room has a large screen.',
          `${organizer} will send the agenda the day before.`,
        ]),
      ],
      options: offered.map(name),
      members,
    };
  },
};

const PROJECTS = [
  'the billing migration',
  'the warehouse app rewrite',
  'the data centre move',
  'the new onboarding flow',
  'the search relaunch',
  'the payroll upgrade',
  'the mobile redesign',
];
const STATUSES = [
  ['on track', 'at risk', 'late'],
  ['green', 'amber', 'red'],
  ['fine', 'watch closely', 'escalate'],
];

/**
 * Project schedule status: the weeks the remaining tasks need at the team's pace,
 * against the weeks left before the deadline. The members of a group share the
 * project, its tasks and its deadline and differ in the pace, so each status is right
 * once; the paces of a group sit in their own window of the family's ladder (17 to 51
 * tasks a week, 51 to 153, 153 to 459), so a pace alone says nothing. Ratios stay
 * 15 % or more away from the band edges.
 */
export const schedule = {
  name: 'schedule',
  domain: 'scheduling',
  mode: 'score',
  make(rng, _size, rung) {
    const project = rng.pick(PROJECTS);
    const statuses = rng.pick(STATUSES);
    const share = rng.pick([60, 70]); // percent of the weeks left
    const [lo, hi] = ladder(rung, 17, 3);
    const { tasks, weeks, paces } = redraw(() => {
      const weeks = rng.int(4, 16);
      // Needed weeks ÷ weeks left, for each status; the slowest pace near the window's foot sets the tasks.
      const ratios = [rng.float(0.7, 0.85) * (share / 100), rng.float(1.15 * (share / 100), 0.87), rng.float(1.15, 1.3)];
      const tasks = nice(rng.float(lo, 1.1 * lo) * ratios[2] * weeks);
      const paces = ratios.map((r) => Math.round(tasks / (r * weeks)));
      const bands = [(r) => r <= 0.85 * (share / 100), (r) => r >= 1.15 * (share / 100) && r <= 0.87, (r) => r >= 1.15];
      const ok = paces.every((p, level) => bands[level](tasks / p / weeks));
      // More tasks a week than weeks left, and fewer than the tasks: never the context's extreme number.
      return ok && paces.every((p) => p >= lo && p < hi && p > weeks && p < tasks) ? { tasks, weeks, paces } : null;
    }, 'schedule paces');
    const pace = rng.pick([
      (p) => `The team finishes about ${p} tasks a week.`,
      (p) => `At its current pace the team closes about ${p} tasks a week.`,
    ]);
    return {
      question: rng.pick([`How does the project office rate the schedule of ${project}?`, `What schedule status should ${project} get?`]),
      shared: [
        `The project office compares the weeks the remaining tasks need at the team's pace with the weeks left before the deadline: needing at most ${share}% of them is "${statuses[0]}", more than ${share}% but no more than all of them is "${statuses[1]}", and more than the weeks left is "${statuses[2]}".`,
        `${capitalize(project)} has ${grouped(tasks)} tasks left.`,
        `The deadline for ${project} is ${weeks} weeks away.`,
        ...distractors(rng, [
          `The team holds its planning meeting on Mondays.`,
          `${capitalize(project)} has its own chat channel.`,
          'The project office reports to the board every quarter.',
          `${capitalize(project)} has its own budget code.`,
        ]),
      ],
      levels: statuses,
      members: paces.map((p, level) => ({ decisive: pace(p), answer: statuses[level] })),
    };
  },
};
