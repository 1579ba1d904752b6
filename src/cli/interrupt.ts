import { CLIENT_EXIT, Failure } from './exit-codes.js';

/**
 * Ctrl-C while a decision is under way. The service finishes a decision it has
 * received, and charges it, whether or not anyone still waits for the answer; the
 * CLI cannot know, at that moment, whether it got that far. Asking it would not help:
 * the same Idempotency-Key sent again before the first request arrived would make and
 * charge the decision itself. So the user is told what is true: it may have been
 * charged, and the key that replays it, once finished, without a new charge.
 */
export interface Interrupt {
  /** Aborted by SIGINT, or by `abort` (Ctrl-C read as a key while the spinner has the keyboard). */
  signal: AbortSignal;
  abort(): void;
  /** The Failure to throw in its place, once the call has given up (exit 130). */
  failure(idempotencyKey: string): Failure;
  /**
   * Stops listening: from then on SIGINT ends the process as usual. Once interrupted,
   * though, the handler stays: a second Ctrl-C (a person presses it twice) would
   * otherwise kill the process before it has said what happened, and the process is
   * only writing its failure and ending.
   */
  dispose(): void;
}

export function listenForInterrupt(): Interrupt {
  const controller = new AbortController();
  const abort = () => controller.abort();
  // Held until disposed, not once: ink's exit hook (signal-exit) may raise SIGINT again after its own clean-up.
  process.on('SIGINT', abort);
  return {
    signal: controller.signal,
    abort,
    failure: (idempotencyKey) =>
      new Failure(
        'interrupted: the decision may have been charged (the service finishes what it received). ' +
          `Run the same command with --idempotency-key ${idempotencyKey}: if it was charged, that replays its answer without a new charge.`,
        CLIENT_EXIT.interrupted,
        { code: 'interrupted' },
      ),
    dispose: () => {
      if (!controller.signal.aborted) process.off('SIGINT', abort);
    },
  };
}
