import type { Depth } from '../ledger/store.js';

/** Weight of the newest measurement in the running mean of a decision's time in its slot. */
const SMOOTHING = 0.2;
/** Weight of the newest measurement in the running mean deviation (as TCP smooths its round-trip variance). */
const DEVIATION_SMOOTHING = 0.25;
/**
 * How many mean deviations above the mean a decision is expected to finish by, as
 * TCP bounds a round trip before it retransmits. A mean alone would let in decisions
 * that half the time outlast it; the deviation grows on a machine that slows down
 * unevenly, exactly when the margin is needed. (In the chaos run beside four busy
 * loops, 2 left 6.8 % of the requests at 504, 4 left 1.8 %: bench/README.md, "Chaos".)
 */
const DEVIATIONS = 4;

/**
 * How long a decision of each depth holds its slot (reserve, the engine's run, and
 * every wait for the event loop in between), as running means of the decisions
 * before it: the mean for sharing out a queue, the mean plus its deviations for
 * judging whether one more decision would still finish in time.
 */
export class DepthTimes {
  readonly #mean = new Map<Depth, number>();
  readonly #deviation = new Map<Depth, number>();

  get timedAny(): boolean {
    return this.#mean.size > 0;
  }

  meanMs(depth: Depth): number | undefined {
    return this.#mean.get(depth);
  }

  /** The time a decision of `depth` is expected to finish within; undefined until one was timed. */
  likelyMs(depth: Depth): number | undefined {
    const mean = this.#mean.get(depth);
    return mean === undefined ? undefined : mean + DEVIATIONS * (this.#deviation.get(depth) ?? 0);
  }

  /** The longest mean of any depth, for a depth not yet timed; undefined before any. */
  slowestMs(): number | undefined {
    return this.#mean.size === 0 ? undefined : Math.max(...this.#mean.values());
  }

  measure(depth: Depth, ms: number): void {
    const mean = this.#mean.get(depth);
    if (mean === undefined) {
      // The first measurement says little of the spread: half of it, as TCP starts its variance.
      this.#mean.set(depth, ms);
      this.#deviation.set(depth, ms / 2);
      return;
    }
    const deviation = this.#deviation.get(depth) ?? 0;
    this.#deviation.set(depth, deviation + DEVIATION_SMOOTHING * (Math.abs(ms - mean) - deviation));
    this.#mean.set(depth, mean + SMOOTHING * (ms - mean));
  }
}
