/**
 * Seeded randomness for the yardstick: the same seed and the same set give the same
 * permutations, halves and bootstrap intervals on every machine, so two reports can
 * be compared figure by figure. Integer arithmetic only.
 */

/** FNV-1a over UTF-16 code units, then a final avalanche so every output bit depends on every input bit. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  // murmur3's finaliser: plain FNV-1a's low bit is the parity of the text's low bits,
  // so appending a suffix like "-nofact" would never move an id to the other half.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** mulberry32: a small, fast generator of floats in [0, 1), good enough for resampling. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random permutation of 0…k−1 (Fisher–Yates) drawn from `next`. */
export function permutation(k: number, next: () => number): number[] {
  const order = [...Array(k).keys()];
  for (let i = k - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}
