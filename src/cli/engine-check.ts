import type { Engine } from '../engine/engine.js';
import { EXIT, Failure } from './exit-codes.js';

/**
 * `decide serve`'s look at a remote engine before it serves: one cheap call (its models
 * list, Engine.probe). A misconfigured engine otherwise shows only as every caller's
 * 502 or 503. By default a failure is a warning that says what was called and why it
 * failed, and the server serves anyway (the engine may come up later; /readyz says
 * when); `--check-engine` makes it exit 69 instead.
 */
export async function checkEngine(
  engine: Engine,
  options: { strict: boolean; timeoutMs: number; warn: (line: string) => void },
): Promise<void> {
  if (!engine.probe) return;
  try {
    await engine.probe(AbortSignal.timeout(options.timeoutMs));
  } catch (error) {
    const why = (error as Error).message;
    if (options.strict) throw new Failure(`the ${engine.name} engine does not answer: ${why}`, EXIT.unavailable);
    options.warn(
      `warning: the ${engine.name} engine does not answer: ${why}. Every decision fails until it does (GET /readyz says when it is back); ` +
        'decide serve --check-engine exits instead',
    );
  }
}
