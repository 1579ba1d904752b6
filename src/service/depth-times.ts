import type { Depth } from '../contract/decision.js';

/** Weight of the newest measurement in the running means. */
const SMOOTHING = 0.2;
/** Weight of the newest measurement in the running mean deviation (as TCP smooths its round-trip variance). */
const DEVIATION_SMOOTHING = 0.25;
/**
 * How many mean deviations above the mean a decision is expected to finish by. A
 * mean alone would let in decisions that half the time outlast it; the deviation
 * grows on a machine that slows down unevenly, exactly when the margin is needed.
 */
const DEVIATIONS = 2;

interface Running {
  mean: number;
  deviation: number;
}

/**
 * How long a decision of each depth holds its slot (reserve, the engine's run, and
 * every wait for the event loop in between), from the decisions before it.
 *
 * Three figures per depth. The plain mean time in the slot, for sharing out the queue
 * of an engine that declares its capacity. Then that time split in two:
 *
 * - work: the process's CPU time over the slot divided by how many decisions ran
 *   beside it (itself included), the decision's share of what this process did. On a
 *   starved process every decision under way shares what CPU it gets, so a newcomer's
 *   work takes that share times how many will run with it; when refusals bring their
 *   number down, the estimate comes down at once, instead of waiting for new
 *   measurements that the refusals themselves would hold back.
 * - latency: the rest of the slot's time, spent waiting on something other than this
 *   process (a provider answering in 5 s). It does not grow with the decisions beside
 *   it: a thousand waits on a remote server cost this process nothing.
 */
export class DepthTimes {
  readonly #slot = new Map<Depth, Running>();
  readonly #work = new Map<Depth, Running>();
  readonly #latency = new Map<Depth, Running>();

  meanMs(depth: Depth): number | undefined {
    return this.#slot.get(depth)?.mean;
  }

  /** The time a decision of `depth` is likely to finish within when `sharers` decisions run (itself included); undefined until one was timed. */
  likelyMs(depth: Depth, sharers: number): number | undefined {
    const work = this.#work.get(depth);
    const latency = this.#latency.get(depth);
    if (work === undefined || latency === undefined) return undefined;
    return upper(latency) + upper(work) * Math.max(1, sharers);
  }

  /** The longest mean of any depth, for a depth not yet timed; undefined before any. */
  slowestMs(): number | undefined {
    return this.#slot.size === 0 ? undefined : Math.max(...[...this.#slot.values()].map((r) => r.mean));
  }

  /**
   * One decision's `ms` in its slot, with `sharers` decisions running on average
   * meanwhile (itself included) and `cpuMs` of CPU time spent by the process in it.
   */
  measure(depth: Depth, ms: number, sharers: number, cpuMs: number): void {
    const work = Math.min(ms, Math.max(0, cpuMs));
    update(this.#slot, depth, ms);
    update(this.#work, depth, work / Math.max(1, sharers));
    update(this.#latency, depth, ms - work);
  }
}

/** What a decision is expected to finish within: the mean and a margin of deviations. */
const upper = (r: Running) => r.mean + DEVIATIONS * r.deviation;

function update(means: Map<Depth, Running>, depth: Depth, ms: number): void {
  const before = means.get(depth);
  if (before === undefined) {
    // The first measurement says little of the spread: half of it, as TCP starts its variance.
    means.set(depth, { mean: ms, deviation: ms / 2 });
    return;
  }
  before.deviation += DEVIATION_SMOOTHING * (Math.abs(ms - before.mean) - before.deviation);
  before.mean += SMOOTHING * (ms - before.mean);
}
