import { ServiceError } from '../contract/index.js';
import type { Depth } from '../ledger/store.js';
import { EngineError } from '../engine/engine.js';
import { WaitingLine } from '../engine/waiting-line.js';

export interface AdmissionOptions {
  /** Decisions the engine works on at once. */
  slots: number;
  /**
   * Whether a decision finding every slot taken may wait for one (an engine that
   * declares its capacity, such as the local one) or is refused at once (a provider
   * that queues on its own side).
   */
  queue: boolean;
  /** The decision deadline: a decision is only let in if it can be answered well within it. */
  deadlineMs: number;
  /** Decisions running and waiting together never exceed this, whatever the estimates say. */
  maxInFlight?: number;
  now?: () => number;
}

/** A decision let in: it holds a slot until it leaves, and its time in the slot is measured. */
export interface Slot {
  leave(): void;
}

/**
 * Of the deadline, what an admitted decision is expected to use at most, waiting and
 * running. The rest is kept for the estimate being wrong: on a busy machine every
 * decision slows down at once, and a refusal now (429, nothing charged, retry
 * later) is better than an answer abandoned at the deadline (504).
 */
const ADMIT_WITHIN = 0.5;
/** Weight of the newest measurement in the running estimate of a decision's time in its slot. */
const SMOOTHING = 0.2;

/**
 * The step in front of the engine, before anything is charged: a decision gets a
 * slot, waits in a bounded queue for one, or is refused at once with 429
 * `engine_busy` and a `Retry-After`. It only waits when its expected wait plus its
 * own time, measured from the decisions before it (per depth: a stress decision
 * takes longer), fits the deadline with room to spare; until a depth has been
 * measured, none of that depth waits. Engine-agnostic: it knows an engine only by
 * its capacity and the times measured here.
 */
export class Admission {
  readonly #slots: number;
  readonly #queue: boolean;
  readonly #deadlineMs: number;
  readonly #maxInFlight: number;
  readonly #now: () => number;
  /** When each running decision took its slot, and its depth. */
  readonly #running = new Set<{ depth: Depth; since: number }>();
  readonly #waiting = new WaitingLine<Slot, Depth>();
  readonly #estimateMs = new Map<Depth, number>();

  constructor(options: AdmissionOptions) {
    this.#slots = Math.max(1, options.slots);
    this.#queue = options.queue;
    this.#deadlineMs = options.deadlineMs;
    this.#maxInFlight = Math.max(this.#slots, options.maxInFlight ?? 512);
    this.#now = options.now ?? (() => performance.now());
  }

  /** Decisions running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.#running.size, waiting: this.#waiting.length };
  }

  /**
   * A slot for a decision of `depth`: at once when one is free, after a wait when
   * the queue allows it, else a 429 thrown at once. A wait cut short by `signal`
   * (the decision's deadline) throws `EngineError('timeout')`.
   */
  async enter(depth: Depth, signal: AbortSignal): Promise<Slot> {
    if (signal.aborted) throw new EngineError('timeout', 'the decision deadline passed before the engine was free');
    if (this.#running.size < this.#slots && this.#waiting.length === 0) return this.#take(depth);
    this.#judge(depth);
    return this.#waiting.wait(depth, signal, () => new EngineError('timeout', 'the decision deadline passed while it waited for the engine'));
  }

  /** Throws the 429 when a newcomer of `depth` may not wait. */
  #judge(depth: Depth): void {
    const busy = (message: string, waitMs: number) =>
      new ServiceError('engine_busy', `the decision engine is saturated: ${message}; retry shortly`, Math.max(1, Math.ceil(waitMs / 1000)));
    const inFlight = this.#running.size + this.#waiting.length;
    if (!this.#queue || inFlight >= this.#maxInFlight) throw busy(`${inFlight} decisions are under way`, 0);
    let own = this.#estimateMs.get(depth);
    if (own === undefined) {
      // Under a load that keeps every slot taken, a depth never timed would never be
      // (stress behind a stream of standard decisions): one of it at a time may wait,
      // counted at the slowest time measured so far, and its slot times the depth.
      const ahead = [...this.#running].some((entry) => entry.depth === depth) || this.#waiting.waiting.includes(depth);
      own = ahead ? undefined : this.#slowestMs();
    }
    const wait = this.expectedWaitMs();
    if (own === undefined || wait === undefined) throw busy('every slot is taken and no decision of this depth has been timed yet', 0);
    const allowed = this.#deadlineMs * ADMIT_WITHIN;
    if (wait + own > allowed) throw busy(`the expected wait (${Math.round(wait)} ms) leaves too little of the ${this.#deadlineMs} ms deadline`, wait + own - allowed);
  }

  /**
   * How long a newcomer would wait for a slot: the work still ahead of it (what the
   * running decisions have left, by their estimates, and all of the waiting ones')
   * shared over the slots. Undefined while a depth ahead has no estimate.
   */
  expectedWaitMs(): number | undefined {
    const now = this.#now();
    let work = 0;
    for (const { depth, since } of this.#running) {
      const estimate = this.#estimateMs.get(depth) ?? this.#slowestMs();
      if (estimate === undefined) return undefined;
      work += Math.max(0, estimate - (now - since));
    }
    for (const depth of this.#waiting.waiting) {
      const estimate = this.#estimateMs.get(depth) ?? this.#slowestMs();
      if (estimate === undefined) return undefined;
      work += estimate;
    }
    return work / this.#slots;
  }

  #take(depth: Depth): Slot {
    const entry = { depth, since: this.#now() };
    this.#running.add(entry);
    let left = false;
    return {
      leave: () => {
        if (left) return;
        left = true;
        this.#running.delete(entry);
        this.#measure(depth, this.#now() - entry.since);
        // Handed over at once, so no newcomer slips into the slot in between.
        const next = this.#waiting.next();
        if (next) next.serve(this.#take(next.about));
      },
    };
  }

  /** The longest time measured of any depth, for a depth not yet timed; undefined before any. */
  #slowestMs(): number | undefined {
    return this.#estimateMs.size === 0 ? undefined : Math.max(...this.#estimateMs.values());
  }

  #measure(depth: Depth, ms: number): void {
    const before = this.#estimateMs.get(depth);
    this.#estimateMs.set(depth, before === undefined ? ms : before + SMOOTHING * (ms - before));
  }
}
