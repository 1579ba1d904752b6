import { EngineError } from '../engine.js';
import { WaitingLine } from '../waiting-line.js';
import type { LlamaSequence, Token } from './runtime.js';

/** A sequence lent to one job until it gives it back. */
export interface Lease {
  readonly sequence: LlamaSequence;
  release(): void;
}

/**
 * The context's sequences, lent one job at a time. A sequence keeps what it last
 * evaluated, so a job is lent the free sequence holding the longest prefix of what
 * it will evaluate (the chat template at least, a whole state when a decision is
 * asked again). Waiting jobs are served first come, first served; a job may borrow
 * more sequences for a while only when nobody waits (`tryAcquire`).
 */
export class SequencePool {
  readonly #free: LlamaSequence[];
  readonly #waiting = new WaitingLine<LlamaSequence>();

  constructor(sequences: LlamaSequence[]) {
    this.#free = [...sequences];
  }

  async acquire(prefer: readonly Token[], signal: AbortSignal): Promise<Lease> {
    if (signal.aborted) throw deadlinePassed();
    if (this.#free.length > 0 && this.#waiting.length === 0) return this.#lend(this.#closest(prefer));
    return this.#lease(await this.#waiting.wait(undefined, signal, deadlinePassed));
  }

  /** Another sequence for a job that already holds one, only if it is free and nobody waits. */
  tryAcquire(prefer: readonly Token[]): Lease | null {
    if (this.#free.length === 0 || this.#waiting.length > 0) return null;
    return this.#lend(this.#closest(prefer));
  }

  #lend(sequence: LlamaSequence): Lease {
    this.#free.splice(this.#free.indexOf(sequence), 1);
    return this.#lease(sequence);
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
        else this.#free.push(sequence);
      },
    };
  }

  /** The free sequence sharing the longest prefix with `tokens`. */
  #closest(tokens: readonly Token[]): LlamaSequence {
    let best = this.#free[0];
    let bestShared = -1;
    for (const sequence of this.#free) {
      const shared = sharedPrefix(sequence.contextTokens, tokens);
      if (shared > bestShared) [best, bestShared] = [sequence, shared];
    }
    return best;
  }
}

export function sharedPrefix(a: readonly Token[], b: readonly Token[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

function deadlinePassed(): EngineError {
  return new EngineError('timeout', 'the decision deadline passed while it waited for the local model');
}
