import { EngineError } from '../engine.js';
import type { Reading } from './prompt.js';
import type { LlamaSequence, Token } from './runtime.js';
import { type Lease, type SequencePool } from './sequences.js';

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
  return build(readings.map((reading, index) => ({ tokens: reading.tokens, index })), 0);
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

export interface TreeResult {
  /** Per reading, the probabilities of its letters in presentation order. */
  probabilities: number[][];
  /** Tokens the model evaluated for this job: what was not already held or shared. */
  evaluated: number;
}

/**
 * Evaluates every reading of a job on sequences of `pool`: one lent for the job,
 * and more for a while when they are free, each starting as a copy of the branch
 * point (no evaluation) and going down another branch. Without copies, or with no
 * sequence free, the branches are taken one after another on the same sequence,
 * which keeps the shared part and evaluates only the rest. The first failure stops
 * the other branches; `signal` (the deadline) stops them all.
 */
export async function evaluateTree(pool: SequencePool, readings: readonly Reading[], signal: AbortSignal): Promise<TreeResult> {
  const root = prefixTree(readings);
  const probabilities: number[][] = new Array(readings.length);
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let evaluated = 0;

  const check = () => {
    if (stop.signal.aborted) throw new EngineError('timeout', 'the local model did not answer before the decision deadline');
  };

  /** Brings `sequence` to hold `path`, evaluating what it lacks; the logits of its last token when `letters` are wanted. */
  async function extend(sequence: LlamaSequence, path: Token[], letters: Token[] | null): Promise<Map<Token, number> | null> {
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
    const results = await sequence.controlledEvaluate([...input, [last, { generateNext: { logits: { filter: { tokens: letters } } } }]]);
    const logits = results.at(-1)?.next?.logits;
    if (!logits) throw new Error('the model returned no logits for the answer');
    return logits;
  }

  async function walk(node: Node, lease: Lease): Promise<void> {
    check();
    const { sequence } = lease;
    const letters = node.readings.length > 0 ? [...new Set(node.readings.flatMap((i) => readings[i].letters))] : null;
    const logits = await extend(sequence, node.path, letters);
    for (const i of node.readings) probabilities[i] = softmax(readings[i].letters.map((letter) => logits!.get(letter) ?? -Infinity));
    if (node.children.length > 1 && sequence.needsCheckpoints) await sequence.takeCheckpoint();

    const [first, ...others] = node.children;
    const forks: Promise<void>[] = [];
    const later: Node[] = [];
    const failed = (error: unknown) => {
      stop.abort();
      throw error;
    };
    for (const child of others) {
      const extra = await borrowCopy(sequence, node.path.length, child.path);
      if (!extra) {
        later.push(child);
        continue;
      }
      const fork = walk(child, extra).catch(failed).finally(() => extra.release());
      fork.catch(() => undefined); // awaited below, once this branch is done; not an unhandled rejection meanwhile
      forks.push(fork);
    }
    try {
      for (const child of first ? [first, ...later] : []) await walk(child, lease);
    } catch (error) {
      failed(error);
    } finally {
      await Promise.allSettled(forks);
    }
    await Promise.all(forks);
  }

  /** A free sequence made to hold `source`'s first `upTo` tokens without evaluating them, or null. */
  async function borrowCopy(source: LlamaSequence, upTo: number, prefer: Token[]): Promise<Lease | null> {
    if (typeof source._copyStateFromOtherSequence !== 'function') return null;
    const extra = pool.tryAcquire(prefer);
    if (!extra) return null;
    try {
      if (await extra.sequence._copyStateFromOtherSequence!(source, upTo)) return extra;
    } catch {
      // an evaluation instead, on the sequence already lent
    }
    extra.release();
    return null;
  }

  const lease = await pool.acquire(root.path, signal);
  try {
    await walk(root, lease);
  } catch (error) {
    stop.abort();
    throw error;
  } finally {
    lease.release();
    signal.removeEventListener('abort', onAbort);
  }
  return { probabilities, evaluated };
}

/** Probabilities from logits, in the same order. */
function softmax(logits: readonly number[]): number[] {
  const max = Math.max(...logits);
  const weights = logits.map((x) => Math.exp(x - max));
  const sum = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / sum);
}
