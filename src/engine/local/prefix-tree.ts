import { EngineError } from '../engine.js';
import type { Reading } from './prompt.js';
import type { LlamaSequence, Token } from './runtime.js';
import type { SequenceTurns } from './sequences.js';

/**
 * A job's readings (prompt.ts) as a tree of their shared prefixes: the root holds
 * what all of them begin with, each branch where they part. Evaluated once per
 * node, a stress decision of N facts costs its base reading plus, for each fact
 * left out, only what follows it, instead of N + 1 whole prompts.
 */
interface Node {
  /** Every token from the root to the end of this node. */
  path: Token[];
  /** Readings ending exactly here (indexes into the job's readings). */
  readings: number[];
  children: Node[];
}

export function prefixTree(readings: readonly Reading[]): Node {
  return build(
    readings.map((reading, index) => ({ tokens: reading.tokens, index })),
    0,
  );
}

function build(items: ReadonlyArray<{ tokens: Token[]; index: number }>, from: number): Node {
  let end = from;
  const [first] = items;
  while (end < first.tokens.length && items.every((item) => item.tokens[end] === first.tokens[end])) end++;
  const groups = new Map<Token, Array<{ tokens: Token[]; index: number }>>();
  for (const item of items) {
    if (item.tokens.length === end) continue;
    const next = item.tokens[end];
    groups.set(next, [...(groups.get(next) ?? []), item]);
  }
  return {
    path: first.tokens.slice(0, end),
    readings: items.filter((item) => item.tokens.length === end).map((item) => item.index),
    children: [...groups.values()].map((group) => build(group, end)),
  };
}

/** What one reading read off the model's next token. */
export interface LetterReading {
  /** The probabilities of its letters in presentation order, renormalised over them. */
  p: number[];
  /** The share of the next-token probability its letters held (every spelling), before renormalising. */
  labelMass: number;
}

export interface TreeResult {
  /** Per reading, in the job's order. */
  readings: LetterReading[];
  /** Tokens the model evaluated for this job: what was not shared. */
  evaluated: number;
}

/**
 * Evaluates every reading of a job on the sequence `turns` lends it, empty and alone
 * (sequences.ts), in an order the readings alone fix: `node`'s first branch down to
 * its first reading, then each branch left along the way, deepest first, cut back to
 * where it parts and evaluated from there. So a shared prefix is evaluated once, and
 * the same job is batched the same way every time, which makes its readings the same
 * to the last bit. Branches are not evaluated side by side on other sequences: which
 * of them would meet in one batch would depend on timing (measured to save little,
 * bench/HISTORY.md). `signal` (the deadline) stops the walk.
 */
export async function evaluateTree(turns: SequenceTurns, readings: readonly Reading[], signal: AbortSignal): Promise<TreeResult> {
  const root = prefixTree(readings);
  const read: LetterReading[] = new Array(readings.length);
  let evaluated = 0;

  const check = () => {
    if (signal.aborted) throw new EngineError('timeout', 'the local model did not answer before the decision deadline');
  };

  /** Brings `sequence` to hold `path`, evaluating what it lacks; what its last token reads when `letters` are wanted. */
  async function extend(sequence: LlamaSequence, path: Token[], letters: Token[] | null): Promise<NextToken | null> {
    await sequence.adaptStateToTokens(path, false);
    let from = sequence.nextTokenIndex;
    if (letters && from >= path.length) {
      // All held already, but the logits are read as a token is evaluated: do the last one again.
      await sequence.eraseContextTokenRanges([{ start: path.length - 1, end: sequence.nextTokenIndex }]);
      from = path.length - 1;
    }
    const input = path.slice(from);
    evaluated += input.length;
    if (input.length === 0) return null;
    check();
    if (!letters) {
      await sequence.evaluateWithoutGeneratingNewTokens(input);
      return null;
    }
    const last = input.pop()!;
    const results = await sequence.controlledEvaluate([
      ...input,
      [last, { generateNext: { logits: { filter: { tokens: letters, includeSelected: true } }, totalLogitWeight: true } }],
    ]);
    const next = results.at(-1)?.next;
    if (!next?.logits || next.totalLogitWeight === undefined) throw new Error('the model returned no logits for the answer');
    return { logits: next.logits, totalWeight: next.totalLogitWeight };
  }

  async function walk(node: Node, sequence: LlamaSequence): Promise<void> {
    check();
    const chain = [node];
    for (let last = node; last.readings.length === 0 && last.children.length > 0; last = last.children[0]) chain.push(last.children[0]);
    const end = chain[chain.length - 1];
    const branches = [...chain.slice(0, -1).flatMap((step) => step.children.slice(1)), ...end.children];
    if (sequence.needsCheckpoints) {
      // Such a state cannot be cut back to a branch point unless a checkpoint was taken there.
      for (const step of chain.slice(0, -1)) {
        await extend(sequence, step.path, null);
        if (step.children.length > 1) await sequence.takeCheckpoint();
      }
    }
    const letters = end.readings.length > 0 ? [...new Set(end.readings.flatMap((i) => readings[i].letters.flat()))] : null;
    const next = await extend(sequence, end.path, letters);
    for (const i of end.readings) read[i] = letterReading(next!, readings[i].letters);
    // Deepest first: it shares the most with what the sequence holds.
    for (const child of branches.reverse()) await walk(child, sequence);
  }

  const lease = await turns.acquire(signal);
  try {
    await walk(root, lease.sequence);
    // A job of one round checks the deadline only before it: answers that come after it are late.
    check();
  } finally {
    lease.release();
  }
  return { readings: read, evaluated };
}

/**
 * The logits of the letters' spellings and of the most likely token, and the sum of
 * exp(logit − the largest) over the vocabulary (llama.cpp computes it beside the logits).
 * The most likely token comes as the one "selected": with no sampling options the
 * library picks greedily, and asking for the top token instead would sort the whole
 * vocabulary (262,144 tokens on Gemma 3) at every reading.
 */
interface NextToken {
  logits: Map<Token, number>;
  totalWeight: number;
}

/**
 * Each letter's weight, exp(logit − the largest logit) summed over its spellings;
 * the letters' probabilities are those weights renormalised, and their share of the
 * next token the weights' sum over the vocabulary's.
 */
function letterReading({ logits, totalWeight }: NextToken, letters: readonly (readonly Token[])[]): LetterReading {
  const top = Math.max(...logits.values());
  const weights = letters.map((spellings) => spellings.reduce((sum, token) => sum + Math.exp((logits.get(token) ?? -Infinity) - top), 0));
  const sum = weights.reduce((a, b) => a + b, 0);
  return { p: weights.map((w) => w / sum), labelMass: Math.min(1, sum / totalWeight) };
}
