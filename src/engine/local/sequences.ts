import { EngineError } from '../engine.js';
import { WaitingLine } from '../waiting-line.js';
import type { LlamaSequence } from './runtime.js';

/** The sequence lent to one job until it gives it back. */
export interface Lease {
  readonly sequence: LlamaSequence;
  release(): void;
}

/**
 * The context's one sequence, lent to one job at a time, first come, first served,
 * and handed over empty. A reading's probabilities depend on how its tokens were
 * batched: evaluated after a prefix some earlier job left behind, or in one batch
 * beside another job's tokens, the same prompt reads differently (by up to a few
 * hundredths on SmolLM2). A job that starts from an empty sequence, alone, and walks
 * its readings in an order fixed by its request (prefix-tree.ts) is evaluated the
 * same way every time, so the same request reads the same to the last bit whatever
 * ran before it or waits beside it.
 */
export class SequenceTurns {
  #free: LlamaSequence | null;
  readonly #waiting = new WaitingLine<LlamaSequence>();

  constructor(sequence: LlamaSequence) {
    this.#free = sequence;
  }

  async acquire(signal: AbortSignal): Promise<Lease> {
    if (signal.aborted) throw deadlinePassed();
    const free = this.#free;
    const sequence = free ? free : await this.#waiting.wait(undefined, signal, deadlinePassed);
    this.#free = null;
    const lease = this.#lease(sequence);
    try {
      // Nothing of an earlier job is reused: not its tokens, nor a checkpoint taken among them.
      if (sequence.nextTokenIndex > 0) await sequence.eraseContextTokenRanges([{ start: 0, end: sequence.nextTokenIndex }]);
    } catch (error) {
      lease.release();
      throw error;
    }
    return lease;
  }

  #lease(sequence: LlamaSequence): Lease {
    let released = false;
    return {
      sequence,
      release: () => {
        if (released) return;
        released = true;
        const next = this.#waiting.next();
        if (next) next.serve(sequence);
        else this.#free = sequence;
      },
    };
  }
}

function deadlinePassed(): EngineError {
  return new EngineError('timeout', 'the decision deadline passed while it waited for the local model');
}
