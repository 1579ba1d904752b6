import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';

/** How often the histogram samples the event loop (ms); Node's default. */
const RESOLUTION_MS = 10;
/** How much recent time one reading covers: long enough to hold many samples, short enough to follow a change of load. */
const WINDOW_MS = 500;
/**
 * How long one reading is reused. Reading the histogram walks all its buckets: done
 * for every decision it took 6 % of the server's CPU in a profile at c=16; a reading
 * at most every 50 ms follows the load as well.
 */
const READ_EVERY_MS = 50;

/**
 * How late the event loop runs now, in milliseconds: the mean delay of its turns over
 * the last half second or so. A request's arrival is stamped when Node reads it, but
 * on a starved process it sat in the socket's buffer for about one late turn before
 * that; this is the part of its wait the stamp cannot see.
 */
export class LoopDelay {
  readonly #histogram: IntervalHistogram;
  #since = performance.now();
  #lastMs = 0;
  #readAt = -Infinity;
  #reading = 0;

  constructor() {
    this.#histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.#histogram.enable();
  }

  /** The delay of the last full window, or of the current one when it is already worse. */
  currentMs(): number {
    const now = performance.now();
    if (now - this.#readAt < READ_EVERY_MS) return this.#reading;
    this.#readAt = now;
    if (now - this.#since >= WINDOW_MS) {
      this.#lastMs = this.#windowMs();
      this.#histogram.reset();
      this.#since = now;
      this.#reading = this.#lastMs;
    } else {
      this.#reading = Math.max(this.#lastMs, this.#windowMs());
    }
    return this.#reading;
  }

  /** The histogram counts the sampling interval itself in each delay; only the lateness beyond it is wanted. */
  #windowMs(): number {
    if (this.#histogram.count === 0) return 0;
    return Math.max(0, this.#histogram.mean / 1e6 - RESOLUTION_MS);
  }
}

let shared: LoopDelay | undefined;

/** The process's one monitor: the event loop is shared, so is its delay (its timer does not keep the process alive). */
export function processLoopDelay(): LoopDelay {
  shared ??= new LoopDelay();
  return shared;
}
