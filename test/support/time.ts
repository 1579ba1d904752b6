/**
 * Every deadline of the suite comes from one setting, DECIDE_TEST_TIME_SCALE.
 *
 * A deadline here is never what a test checks: it only turns a hang into a readable
 * failure (a child killed and named, an engine call given up) before vitest's own
 * timeout. So the deadlines that must not fire are generous, and slower machines ask
 * for more room with the one variable: `DECIDE_TEST_TIME_SCALE=6 npm test`. The bases
 * passed to `scaled()` are what an idle 2-core machine needs with room to spare; the
 * default scale, 3, is the slowdown of that machine with two busy-loop processes on it
 * (the team measured ~4 min idle against ~15 min busy, a good part of which was tests
 * waiting out deadlines), so both pass untouched. A larger scale costs nothing while
 * everything works: it only makes a real hang take longer to be reported.
 *
 * Deadlines a test *wants* to fire (an engine timeout it checks, a lock wait meant to
 * run out) stay short and unscaled, and never guard anything that must succeed.
 * No test compares a duration: timings belong to the bench (`npm run bench`).
 */

const DEFAULT_SCALE = 3;

function readScale(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_SCALE;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale < 1) {
    throw new Error(`DECIDE_TEST_TIME_SCALE must be a number of 1 or more (a factor on every test deadline); got "${raw}"`);
  }
  return scale;
}

/** The factor on every deadline that must not fire (DECIDE_TEST_TIME_SCALE, default 3). */
export const TIME_SCALE = readScale(process.env.DECIDE_TEST_TIME_SCALE);

/** `ms`, an idle machine's generous deadline, stretched by TIME_SCALE. */
export function scaled(ms: number): number {
  return Math.round(ms * TIME_SCALE);
}

/** Resolves after `ms` (unscaled: a pause between polls, not a deadline). */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `probe` (sync or async) every `everyMs` until it holds; rejects naming `what`
 * once `timeoutMs` (a scaled deadline by default) has passed without it.
 */
export async function eventually(
  probe: () => boolean | Promise<boolean>,
  what: string,
  { timeoutMs = scaled(5_000), everyMs = 20 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A promise and the function that resolves it: a gate a test opens when it chooses. */
export function gate(): { promise: Promise<void>; open(): void; readonly opened: boolean } {
  let open!: () => void;
  let opened = false;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return {
    promise,
    open() {
      opened = true;
      open();
    },
    get opened() {
      return opened;
    },
  };
}
