import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DecisionRequest } from '../../../src/contract/decision.js';
import { runDecision } from '../../../src/decision/run.js';
import { createLocalEngine, type LocalEngine } from '../../../src/engine/local/local.js';
import { LOCAL_RUNTIME, NEEDS_LOCAL_RUNTIME } from '../../support/local-runtime.js';
import { GEMMA3, NEEDS_REAL_MODELS, SMOLLM2 } from '../../support/real-models.js';
import { CHOICE, NOUL, SCORE } from '../../support/requests.js';
import { scaled } from '../../support/time.js';

/**
 * The same request reads the same on real weights, as a user repeating `decide ask`
 * would check: before, llama.cpp read one prompt differently with what its sequences
 * held from earlier decisions and what it batched beside it (the README's database
 * question came back 54.0 % once, 51.9 % after). SmolLM2 is cut back to a branch
 * point directly; Gemma 3's sliding-window state only through checkpoints, so both
 * of the engine's ways of walking a decision are covered.
 */
describe.skipIf(!LOCAL_RUNTIME)(`the same request on real weights ${NEEDS_LOCAL_RUNTIME} ${NEEDS_REAL_MODELS}`, () => {
  for (const [name, file] of [
    ['SmolLM2', SMOLLM2],
    ['Gemma 3', GEMMA3],
  ] as const) {
    describe.skipIf(!file)(name, () => {
      let engine: LocalEngine;
      beforeAll(async () => {
        engine = await createLocalEngine({ modelPath: file!, threads: 2 });
      });
      afterAll(() => engine?.close?.());

      const request = DecisionRequest.parse({ ...CHOICE, depth: 'stress' });
      const run = (r: DecisionRequest) => runDecision(r, engine, { signal: new AbortController().signal, debias: 'reverse' });

      it('answers a stress decision identically after other decisions and beside them', { timeout: scaled(600_000) }, async () => {
        const first = JSON.stringify(await run(request));
        const others = [NOUL, SCORE, { ...CHOICE, context: 'Billing needs transactions.' }].map((r) => DecisionRequest.parse(r));
        for (const other of others) await run(other);
        const after = JSON.stringify(await run(request));
        const beside = await Promise.all([run(others[0]), run(request), run(others[1])]);
        expect(after).toBe(first);
        expect(JSON.stringify(beside[1])).toBe(first);
      });
    });
  }
});
