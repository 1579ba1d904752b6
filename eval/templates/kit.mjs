// Shared helpers of the template families: a seeded PRNG and wording helpers. Only integer and basic float arithmetic, so every Node version
// draws the same numbers and the generated set stays byte-for-byte reproducible.

/** FNV-1a over code points: turns a seed and a name into a 32-bit PRNG seed. */
export function hash32(text) {
  let h = 0x811c9dc5;
  for (const ch of text) {
    h ^= ch.codePointAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** mulberry32: tiny, fast and good enough to draw template values. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Rng {
  constructor(seed) {
    this.next = mulberry32(seed);
  }
  /** Integer in [lo, hi], both included. */
  int(lo, hi) {
    if (hi < lo) throw new Error(`empty range [${lo}, ${hi}]`);
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  float(lo, hi) {
    return lo + (hi - lo) * this.next();
  }
  chance(p) {
    return this.next() < p;
  }
  pick(list) {
    return list[this.int(0, list.length - 1)];
  }
  shuffle(list) {
    const a = list.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  }
  sample(list, n) {
    return this.shuffle(list).slice(0, n);
  }
}

/**
 * Draws until `draw` returns something other than null. Templates reject draws whose
 * margins come out too thin rather than nudging numbers, so every kept value is a
 * plain draw that meets its margin.
 */
export function redraw(draw, what) {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const value = draw();
    if (value !== null) return value;
  }
  throw new Error(`${what}: no draw met the margins in 1000 attempts`);
}

/** Irrelevant but true sentences for about 60 % of groups, one or two of them. */
export function distractors(rng, pool) {
  if (!rng.chance(0.6)) return [];
  return rng.sample(pool, rng.int(1, Math.min(2, pool.length)));
}

// ---- wording ------------------------------------------------------------------

export const PEOPLE = [
  'Ana',
  'Bo',
  'Chen',
  'Dara',
  'Eli',
  'Farah',
  'Goran',
  'Hana',
  'Ines',
  'Jonas',
  'Kemi',
  'Lars',
  'Mira',
  'Niko',
  'Oona',
  'Pavel',
  'Rosa',
  'Sami',
  'Tariq',
  'Uma',
  'Vera',
  'Wen',
  'Yara',
  'Zane',
];

/** Integer with thousands separators: 12500 → "12,500". */
export function grouped(n) {
  if (!Number.isInteger(n)) throw new Error(`grouped() wants an integer, got ${n}`);
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export const money = (n) => `$${grouped(n)}`;

/** A count of tenths as a decimal: 25 → "2.5", 30 → "3". */
export function tenths(t) {
  return t % 10 === 0 ? String(t / 10) : `${Math.floor(t / 10)}.${t % 10}`;
}

/** Minutes after midnight as "HH:MM". */
export function clock(minutes) {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
}

export const roundTo = (x, step) => Math.round(x / step) * step;

/** "A", "A and B", "A, B and C". */
export function listing(items) {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

export const capitalize = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** Two significant digits: 27, 130, 1,200 (a figure as people quote it). */
export function nice(x) {
  let step = 1;
  while (x >= 100 * step) step *= 10;
  return Math.round(x / step) * step;
}

/**
 * The window of a family's ladder that a group at `rung` draws its decisive values
 * from: [start·factor^rung, start·factor^(rung+1)). Groups sit at different rungs, so
 * their windows never overlap: the decisive number alone tells which group an item
 * is from, and every group holds every answer, so it does not tell the answer. The
 * quantity it is compared with follows the rung. (Repeated products, not `**`, so
 * every Node version draws the same numbers.)
 */
export function ladder(rung, start, factor) {
  let lo = start;
  for (let i = 0; i < rung; i++) lo *= factor;
  return [lo, lo * factor];
}
