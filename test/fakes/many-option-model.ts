import { fnv1a, mulberry32 } from './http-fake.js';
import { factsText, offeredGroups, offeredOptions } from './openai-fake.js';

/**
 * A simulated model for choices of many options, answering the openai engine's prompts
 * through the OpenAI fake as a chat model's first token would: so that the grouped
 * reading of more than 16 options (src/engine/grouped.ts) can be measured against the
 * one-call reading on a labelled set. Its faults are the ones that make the two
 * readings differ in practice, each drawn deterministically:
 *
 * - a latent strength per option of each item: the right one stands out by `signal`,
 *   a few near-misses by half of it, the rest is noise (N(0, 1));
 * - sharpness fades as more options are shown at once (strength × 1/(1 + shown/200));
 * - place bias: +0.3 on the first label shown, +0.15 on the last;
 * - per prompt noise (N(0, `noise`)) on every label's logit, so two prompts of one
 *   question never agree exactly;
 * - a group is judged by its members (log Σ exp of their strengths), with the same
 *   place bias and noise over the groups;
 * - 8 % of the mass on tokens that are no label ("The", "Sure", "\n"), and a tenth of
 *   each label's mass on its variant with a leading space; then only the 20 likeliest
 *   tokens are returned, as `top_logprobs: 20` does.
 */

export interface ManyOptionItem {
  /** The facts, which name the item. */
  state: string;
  /** Every option name of the item's catalogue, in order. */
  options: string[];
  right: string;
  /** Latent strength per option name. */
  strength: Map<string, number>;
}

/** A standard normal draw from two uniforms (Box–Muller). */
function normal(next: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
}

/** `count` items over catalogues of `size` options, the same for a seed. */
export function manyOptionSet(count: number, size: number, seed: number, signal = 2.5): ManyOptionItem[] {
  return Array.from({ length: count }, (_, k) => {
    const next = mulberry32(fnv1a(`item-${seed}-${k}`));
    const options = Array.from({ length: size }, (_, i) => `Queue ${String(i + 1).padStart(3, '0')}`);
    const right = options[Math.floor(next() * size)];
    const strength = new Map(options.map((o) => [o, normal(next)]));
    strength.set(right, strength.get(right)! + signal);
    for (let j = 0; j < 3; j++) {
      const near = options[Math.floor(next() * size)];
      if (near !== right) strength.set(near, strength.get(near)! + signal / 2);
    }
    return { state: `Ticket ${seed}-${k}: route it to the queue it belongs to.`, options, right, strength };
  });
}

/** The same item asked with fewer options: the right one and the first `keep − 1` others, in catalogue order. */
export function cut(item: ManyOptionItem, keep: number): string[] {
  const others = item.options.filter((o) => o !== item.right).slice(0, keep - 1);
  return item.options.filter((o) => o === item.right || others.includes(o));
}

const NO_LABEL = ['The', 'Sure', '\n'];

/**
 * What one call over `names` would read were there no 20-token limit: the same prompt
 * as the engine's (options labelled 1, 2, … in order), every label's probability
 * renormalised over the labels. No engine can send it; the measurement compares with it.
 */
export function unlimitedReading(items: readonly ManyOptionItem[], item: ManyOptionItem, names: readonly string[]): Record<string, number> {
  const user = `Facts:\n${item.state}\n\nQuestion:\nWhich queue does this ticket belong to?\n\nOptions:\n${names.map((n, i) => `- ${i + 1}: ${n}`).join('\n')}`;
  const tokens = manyOptionAnswer(items, { messages: [{ role: 'user', content: user }] }, 0.3, Infinity);
  const masses = names.map((_, i) => (tokens[String(i + 1)] ?? 0) + (tokens[` ${i + 1}`] ?? 0));
  const total = masses.reduce((a, b) => a + b, 0);
  return Object.fromEntries(names.map((n, i) => [n, masses[i] / total]));
}

/** The token probabilities the model answers an openai-engine prompt about one of `items` with. */
export function manyOptionAnswer(items: readonly ManyOptionItem[], body: any, noise = 0.3, limit = 20): Record<string, number> {
  const item = items.find((i) => i.state === factsText(body));
  if (!item) throw new Error(`the simulated model knows no item with the facts ${JSON.stringify(factsText(body))}`);
  const next = mulberry32(fnv1a(JSON.stringify(body.messages)));
  const groups = offeredGroups(body);
  const units =
    groups.length > 0
      ? groups.map((g) => ({ label: g.label, names: g.members }))
      : offeredOptions(body).map((o) => ({ label: o.label, names: [o.text] }));
  const shown = units.reduce((n, u) => n + u.names.length, 0);
  const sharpness = 1 / (1 + shown / 200);
  const logits = units.map((u, place) => {
    const judged = Math.log(u.names.reduce((sum, name) => sum + Math.exp(sharpness * (item.strength.get(name.split(' — ')[0]) ?? -5)), 0));
    const bias = place === 0 ? 0.3 : place === units.length - 1 ? 0.15 : 0;
    return judged + bias + noise * normal(next);
  });
  const top = Math.max(...logits);
  const weights = logits.map((l) => Math.exp(l - top));
  const total = weights.reduce((a, b) => a + b, 0);
  const tokens: Array<[string, number]> = NO_LABEL.map((t) => [t, 0.08 / NO_LABEL.length]);
  units.forEach((u, i) => {
    const p = (0.92 * weights[i]) / total;
    tokens.push([u.label, 0.9 * p], [` ${u.label}`, 0.1 * p]);
  });
  tokens.sort((a, b) => b[1] - a[1]);
  return Object.fromEntries(tokens.slice(0, limit));
}
