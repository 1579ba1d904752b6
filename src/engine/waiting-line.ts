/**
 * Who waits for something handed over one at a time (an engine slot, a sequence),
 * first come, first served. A waiter whose signal aborts leaves the line at once,
 * rejected with the error `gaveUp` makes; one already served keeps what it got.
 */
export class WaitingLine<T, W = undefined> {
  readonly #waiting: Array<{ about: W; serve: (value: T) => void }> = [];

  get length(): number {
    return this.#waiting.length;
  }

  /** What every waiter waits about (a depth, a prefix), first in line first. */
  get waiting(): readonly W[] {
    return this.#waiting.map((waiter) => waiter.about);
  }

  wait(about: W, signal: AbortSignal, gaveUp: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter = {
        about,
        serve: (value: T) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
      };
      const onAbort = () => {
        const at = this.#waiting.indexOf(waiter);
        if (at < 0) return; // served already
        this.#waiting.splice(at, 1);
        reject(gaveUp());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  /** The first in line, to be handed its value with `serve`; undefined when nobody waits. */
  next(): { about: W; serve: (value: T) => void } | undefined {
    return this.#waiting.shift();
  }
}
