import { setMaxListeners } from 'node:events';
import { EngineError } from './engine.js';

type Why = 'caller' | 'timeout' | 'cancelled';

/**
 * One engine call's time budget: the caller's signal (the decision's deadline) and the
 * engine's own `timeoutMs`, whichever comes first, folded into a single signal that
 * every HTTP attempt and retry wait listens to. Remembering which one fired lets the
 * error say why, since transports only report "aborted"; the signal's reason is that
 * error.
 */
export class Deadline {
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #caller: AbortSignal;
  readonly #endsAt: number;
  readonly #timer: NodeJS.Timeout | undefined;
  #why: Why | undefined;
  readonly #onCallerAbort = () => this.#abort('caller');

  constructor(
    caller: AbortSignal,
    readonly timeoutMs: number,
    private readonly provider: string,
  ) {
    this.signal = this.#controller.signal;
    // Every call of the ask listens to it: a stress decision makes ~15, a grouped choice of 255 options 17.
    setMaxListeners(256, this.signal);
    this.#caller = caller;
    this.#endsAt = Date.now() + timeoutMs;
    if (caller.aborted) {
      this.#abort('caller');
      return;
    }
    caller.addEventListener('abort', this.#onCallerAbort, { once: true });
    this.#timer = setTimeout(() => this.#abort('timeout'), timeoutMs);
  }

  get expired(): boolean {
    return this.signal.aborted;
  }

  /** Time left of the engine's own budget (the caller's deadline is opaque to us). */
  remainingMs(): number {
    return Math.max(0, this.#endsAt - Date.now());
  }

  /** Stops every call still running under this deadline, e.g. when a sibling failed. */
  cancel(): void {
    this.#abort('cancelled');
  }

  /** The error to report once the signal has fired. */
  failure(): EngineError {
    switch (this.#why) {
      case 'timeout':
        return new EngineError('timeout', `${this.provider} engine did not answer within ${this.timeoutMs} ms`);
      case 'cancelled':
        return new EngineError('timeout', `${this.provider} engine call cancelled after another question failed`);
      default:
        return new EngineError('timeout', `${this.provider} engine gave up: the decision's deadline passed`);
    }
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#caller.removeEventListener('abort', this.#onCallerAbort);
  }

  #abort(why: Why): void {
    if (this.#why) return;
    this.#why = why;
    clearTimeout(this.#timer);
    // The reason is the error to report, so whatever the signal cuts short (a retry's wait) can throw it as is.
    this.#controller.abort(this.failure());
  }
}
