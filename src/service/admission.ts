import { ServiceError } from '../contract/index.js';
import { EngineError } from '../engine/engine.js';
import { WaitingLine } from '../engine/waiting-line.js';
import { DepthTimes } from './depth-times.js';
import { processLoopDelay } from './loop-delay.js';
import type { Depth } from '../contract/decision.js';

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
  /** How late the event loop runs now (loop-delay.ts); the process's own by default. */
  loopDelayMs?: () => number;
  /**
   * Whether the engine works elsewhere (a provider over HTTP), so the queue-time rule
   * below applies: its decisions' work here is CPU they share, the rest latency. A
   * local engine's work is on its own threads and bounded by its capacity. Default:
   * an engine without a queue.
   */
  remote?: boolean;
  /** The process's CPU time so far (ms), user and system; process.cpuUsage() by default. */
  cpuMs?: () => number;
}

const processCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

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

/**
 * The step in front of the engine, before anything is charged: a decision gets a
 * slot, waits in a bounded queue for one, or is refused at once with 429
 * `engine_busy` and a `Retry-After`. Two rules, both from times measured here per
 * depth (a stress decision takes longer):
 *
 * - Queue time, for an engine that works elsewhere (a provider over HTTP): what
 *   competes here is this process, every decision under way sharing its CPU. A
 *   decision whose likely time (the event loop's current delay, the latency its depth
 *   has shown, then its share of the process's CPU beside every decision under way:
 *   depth-times.ts) would carry it past the deadline is refused rather than run into
 *   a 504. On a starved machine every decision slows down together; refusing the
 *   ones that cannot make it keeps the rest inside the deadline. A provider that is
 *   merely slow costs latency, not CPU: an idle server in front of one admits every
 *   decision whose deadline it can meet. A depth none of which is running is always
 *   let in, so it stays timed.
 * - Capacity, for an engine that declares it (the local engine's sequences, a
 *   provider's connection pool): a decision finding every slot taken only waits when
 *   the event loop's delay, its expected wait and its own time fit the deadline with
 *   room to spare; until a depth has been measured, none of that depth waits. So a
 *   cold burst beyond the pool gets 429 and Retry-After at once, not a wait in the
 *   pool that ends in 504.
 *
 * Engine-agnostic: it knows an engine only by its capacity and the times measured here.
 */
export class Admission {
  readonly #slots: number;
  readonly #queue: boolean;
  readonly #deadlineMs: number;
  readonly #maxInFlight: number;
  readonly #now: () => number;
  readonly #loopDelayMs: () => number;
  readonly #remote: boolean;
  readonly #cpuMs: () => number;
  /** When each running decision took its slot, the process's CPU time then, its depth, and how many ran then (itself included). */
  readonly #running = new Set<{ depth: Depth; since: number; cpuSince: number; beside: number }>();
  readonly #waiting = new WaitingLine<Slot, Depth>();
  readonly #times = new DepthTimes();

  constructor(options: AdmissionOptions) {
    this.#slots = Math.max(1, options.slots);
    this.#queue = options.queue;
    this.#deadlineMs = options.deadlineMs;
    this.#maxInFlight = Math.max(this.#slots, options.maxInFlight ?? 512);
    this.#now = options.now ?? (() => performance.now());
    const loop = options.loopDelayMs ? undefined : processLoopDelay();
    this.#loopDelayMs = options.loopDelayMs ?? (() => loop!.currentMs());
    this.#remote = options.remote ?? !options.queue;
    this.#cpuMs = options.cpuMs ?? processCpuMs;
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
    const waitedMs = this.#loopDelayMs();
    this.#judgeQueueTime(depth, waitedMs);
    if (this.#running.size < this.#slots && this.#waiting.length === 0) return this.#take(depth);
    this.#judge(depth, waitedMs);
    return this.#waiting.wait(
      depth,
      signal,
      () => new EngineError('timeout', 'the decision deadline passed while it waited for the engine'),
    );
  }

  /**
   * The queue-time rule alone, for a request about to be taken up: it throws the 429
   * that `enter` would, so a request that would be refused costs no ledger write
   * (an Idempotency-Key's record) before it is.
   */
  refuseLate(depth: Depth): void {
    this.#judgeQueueTime(depth, this.#loopDelayMs());
  }

  /**
   * Throws the 429 when a newcomer of `depth` would likely finish past the deadline:
   * `waitedMs`, how late the event loop runs (a request sits that long unread on a
   * starved process), then its likely time beside the decisions under way.
   */
  #judgeQueueTime(depth: Depth, waitedMs: number): void {
    // A local engine's work is judged by its capacity (`#judge`, with the same delay counted).
    if (!this.#remote) return;
    const finish = waitedMs + (this.#times.likelyMs(depth, this.#running.size + 1) ?? 0);
    if (finish <= this.#deadlineMs) return;
    // One of a depth at a time always gets in (unless the loop's delay alone spends the deadline), so the depth stays timed.
    if (waitedMs < this.#deadlineMs && !this.#underWay(depth)) return;
    throw busy(
      `the event loop runs ${Math.round(waitedMs)} ms late and a ${depth} decision beside the ` +
        `${this.#running.size} under way would take up to about ${Math.round(finish - waitedMs)} ms, past the ${this.#deadlineMs} ms deadline`,
      finish - this.#deadlineMs,
    );
  }

  /** Throws the 429 when a newcomer of `depth` may not wait for a slot. */
  #judge(depth: Depth, waitedMs: number): void {
    const inFlight = this.#running.size + this.#waiting.length;
    if (!this.#queue || inFlight >= this.#maxInFlight) throw busy(`${inFlight} decisions are under way`, 0);
    let own = this.#times.meanMs(depth);
    if (own === undefined) {
      // Under a load that keeps every slot taken, a depth never timed would never be
      // (stress behind a stream of standard decisions): one of it at a time may wait,
      // counted at the slowest time measured so far, and its slot times the depth.
      own = this.#underWay(depth) ? undefined : this.#times.slowestMs();
    }
    const queued = this.expectedWaitMs();
    if (own === undefined || queued === undefined) throw busy('every slot is taken and no decision of this depth has been timed yet', 0);
    const wait = waitedMs + queued;
    const allowed = this.#deadlineMs * ADMIT_WITHIN;
    if (wait + own > allowed)
      throw busy(
        `the expected wait (${Math.round(wait)} ms) leaves too little of the ${this.#deadlineMs} ms deadline`,
        wait + own - allowed,
      );
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
      const estimate = this.#times.meanMs(depth) ?? this.#times.slowestMs();
      if (estimate === undefined) return undefined;
      work += Math.max(0, estimate - (now - since));
    }
    for (const depth of this.#waiting.waiting) {
      const estimate = this.#times.meanMs(depth) ?? this.#times.slowestMs();
      if (estimate === undefined) return undefined;
      work += estimate;
    }
    return work / this.#slots;
  }

  /** Whether a decision of `depth` is running or waiting: it will be timed, so a newcomer need not be. */
  #underWay(depth: Depth): boolean {
    return [...this.#running].some((entry) => entry.depth === depth) || this.#waiting.waiting.includes(depth);
  }

  #take(depth: Depth): Slot {
    const entry = { depth, since: this.#now(), cpuSince: this.#cpuMs(), beside: this.#running.size + 1 };
    this.#running.add(entry);
    let left = false;
    return {
      leave: () => {
        if (left) return;
        left = true;
        this.#running.delete(entry);
        // How many shared the process meanwhile: the mean of what it found and what it leaves.
        this.#times.measure(depth, this.#now() - entry.since, (entry.beside + this.#running.size + 1) / 2, this.#cpuMs() - entry.cpuSince);
        // Handed over at once, so no newcomer slips into the slot in between.
        const next = this.#waiting.next();
        if (next) next.serve(this.#take(next.about));
      },
    };
  }
}

/** The 429: `overMs` is how far past what it may use the decision would finish, so Retry-After says when that will have drained. */
function busy(message: string, overMs: number): ServiceError {
  return new ServiceError(
    'engine_busy',
    `the decision engine is saturated: ${message}; retry shortly`,
    Math.max(1, Math.ceil(overMs / 1000)),
  );
}
