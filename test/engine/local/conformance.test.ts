import { createLocalEngine } from '../../../src/engine/local/local.js';
import { LOCAL_RUNTIME, NEEDS_LOCAL_RUNTIME } from '../../support/local-runtime.js';
import { TINY_MODEL } from '../../support/service.js';
import { describeEngineConformance } from '../conformance.js';

// The same table as the providers' fakes, on the tiny random-weights model: what is
// presented cannot be seen from outside the process, and the model answers a question
// in a few milliseconds, so the mid-call abort comes right after the call starts.
describeEngineConformance('local', {
  skip: !LOCAL_RUNTIME,
  needs: NEEDS_LOCAL_RUNTIME,
  async start() {
    const engine = await createLocalEngine({ modelPath: TINY_MODEL });
    return { engine, close: async () => engine.close?.() };
  },
  abortAfterMs: 1,
});
