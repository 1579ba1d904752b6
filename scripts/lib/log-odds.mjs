// Log-odds for the development scripts that combine probabilities (sufficiency-rules.mjs,
// sufficiency-probes.mjs): a probability is clamped a millionth from 0 and 1 first, so a
// reading pinned at 0 or 1 stays a finite number of log-odds.

const EDGE = 1e-6;

export const logit = (p) => {
  const q = Math.min(1 - EDGE, Math.max(EDGE, p));
  return Math.log(q / (1 - q));
};

export const sigmoid = (x) => 1 / (1 + Math.exp(-x));
