import { EngineError } from '../engine.js';
import type { Reading } from './prompt.js';
import type { LlamaSequence, Token } from './runtime.js';
import { type Lease, type SequencePool, sharedPrefix } from './sequences.js';

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

export interface TreeResult {
  /** Per reading, the probabilities of its letters in presentation order. */
  probabilities: number[][];
  /** Tokens the model evaluated for this job: what was not already held or shared. */
  evaluated: number;
}

/**
 * Evaluates every reading of a job on sequences of `pool`: one lent for the job,
 * and more for a while when they are free, each holding the branch point already
 * or made to by a copy (no evaluation) and going down another branch. Without
 * copies, or with no sequence free, the branches are taken one after another on the
 * same sequence, which keeps the shared part and evaluates only the rest. The first
 * failure stops the other branches; `signal` (the deadline) stops them all.
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

  /**
   * Evaluates `node`'s first branch down to its first reading in one go, and with it
   * every branch that parts from it where this sequence already holds the tokens (the
   * chat template, when a decision's questions part right after it); then every
   * branch left along the way at once: the deepest here (it shares the most with what
   * the sequence holds, so nothing is copied for it), each other on a free sequence
   * that holds its branch point already or is made to by a copy (no evaluation), the
   * rest here one after another, deepest first. So the tree takes about as many
   * rounds of evaluation as it has levels of branches taken side by side, not one per
   * branch point: on a small model each round costs more than its tokens.
   */
  async function walk(node: Node, lease: Lease): Promise<void> {
    check();
    const { sequence } = lease;
    const chain = [node];
    for (let last = node; last.readings.length === 0 && last.children.length > 0; last = last.children[0]) chain.push(last.children[0]);
    const end = chain[chain.length - 1];
    const branches = [
      ...chain.slice(0, -1).flatMap((step) => step.children.slice(1).map((child) => ({ child, upTo: step.path.length }))),
      ...end.children.map((child) => ({ child, upTo: end.path.length })),
    ];
    const forks: Promise<void>[] = [];
    const failed = (error: unknown) => {
      stop.abort();
      throw error;
    };
    const fork = (child: Node, extra: Lease) => {
      const done = walk(child, extra)
        .catch(failed)
        .finally(() => extra.release());
      done.catch(() => undefined); // awaited below, once this branch is done; not an unhandled rejection meanwhile
      forks.push(done);
    };
    try {
      let left = branches;
      if (sequence.needsCheckpoints) {
        // Such a state cannot be cut back to a branch point unless a checkpoint was taken there.
        for (const step of chain.slice(0, -1)) {
          await extend(sequence, step.path, null);
          if (step.children.length > 1) await sequence.takeCheckpoint();
        }
      } else {
        const held = sharedPrefix(sequence.contextTokens, end.path);
        const early = branches.filter(({ upTo }) => upTo <= held);
        const extras = await Promise.all(early.map(({ child, upTo }) => borrow(sequence, upTo, child.path)));
        early.forEach(({ child }, i) => extras[i] && fork(child, extras[i]));
        left = branches.filter((branch) => !extras[early.indexOf(branch)]);
      }
      const letters = end.readings.length > 0 ? [...new Set(end.readings.flatMap((i) => readings[i].letters))] : null;
      const logits = await extend(sequence, end.path, letters);
      for (const i of end.readings) probabilities[i] = softmax(readings[i].letters.map((letter) => logits!.get(letter) ?? -Infinity));

      // Every copy first, then every branch at once, so llama.cpp evaluates them in one batch.
      const elsewhere = left.slice(0, -1);
      const extras = await Promise.all(elsewhere.map(({ child, upTo }) => borrow(sequence, upTo, child.path)));
      elsewhere.forEach(({ child }, i) => extras[i] && fork(child, extras[i]));
      const here = left.filter((branch) => !extras[elsewhere.indexOf(branch)]).reverse();
      for (const { child } of here) await walk(child, lease);
    } catch (error) {
      failed(error);
    } finally {
      await Promise.allSettled(forks);
    }
    await Promise.all(forks);
  }

  /**
   * A free sequence holding `source`'s first `upTo` tokens: one that holds them already
   * (the pool lends the closest), else one made to by a copy, without evaluating; or null.
   */
  async function borrow(source: LlamaSequence, upTo: number, path: Token[]): Promise<Lease | null> {
    const extra = pool.tryAcquire(path);
    if (!extra) return null;
    // A state that needs checkpoints may not be cut back to `upTo` without evaluating again: copied instead.
    if (!source.needsCheckpoints && sharedPrefix(extra.sequence.contextTokens, path) >= upTo) return extra;
    try {
      if (
        typeof extra.sequence._copyStateFromOtherSequence === 'function' &&
        (await extra.sequence._copyStateFromOtherSequence(source, upTo))
      )
        return extra;
    } catch {
      // an evaluation instead, on the sequence already lent
    }
    extra.release();
    return null;
  }

  // The sequence holding most of the first branch, which is evaluated on it in one go.
  let first = root;
  while (first.readings.length === 0 && first.children.length > 0) first = first.children[0];
  const lease = await pool.acquire(first.path, signal);
  try {
    await walk(root, lease);
    // A job of one round checks the deadline only before it: answers that come after it are late.
    check();
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
