import { createAnthropicEngine } from '../../src/engine/anthropic.js';
import type { Engine } from '../../src/engine/engine.js';
import { createOpenAIEngine } from '../../src/engine/openai.js';
import { createSystemOneEngine } from '../../src/engine/systemone.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { CommonBehaviour, Fake } from '../fakes/http-fake.js';
import { offeredOptions, questionKind, questionText, startOpenAIFake } from '../fakes/openai-fake.js';
import { startSystemOneFake } from '../fakes/systemone-fake.js';
import { describeEngineConformance, type ConformanceSubject } from './conformance.js';
import { scaled } from '../support/time.js';

/** A fake and its engine as one subject; `presented` reads the prompts of the engines that send text. */
function subject(fake: Fake<CommonBehaviour>, engine: Engine, prompts: boolean): ConformanceSubject {
  return {
    engine,
    async close() {
      await engine.close?.();
      await fake.close();
    },
    presentedChoices: prompts
      ? () =>
          fake.requests
            .filter((r) => questionKind(r.body) === 'choice')
            // The conformance options are bare labels or `label — description`.
            .map((r) => ({ instructions: questionText(r.body), labels: offeredOptions(r.body).map((o) => o.text.split(' — ')[0]) }))
      : undefined,
    slowDown: () => fake.respond(() => ({ hang: true })),
    calls: () => fake.requests.length,
  };
}

describeEngineConformance('systemone', {
  async start() {
    const fake = await startSystemOneFake();
    // No presentedChoices: the wire carries choice criteria as an object, which puts
    // "1999" before "2025" (docs/api.md, Engines).
    return subject(fake, createSystemOneEngine({ baseUrl: fake.url, model: 'jev-test', timeoutMs: scaled(5_000) }), false);
  },
});

describeEngineConformance('openai (logprobs)', {
  async start() {
    const fake = await startOpenAIFake();
    return subject(fake, createOpenAIEngine({ baseUrl: fake.url, model: 'fake-model', timeoutMs: scaled(5_000) }), true);
  },
});

describeEngineConformance('openai (verbalized)', {
  async start() {
    const fake = await startOpenAIFake();
    return subject(fake, createOpenAIEngine({ baseUrl: fake.url, model: 'fake-model', probabilities: 'verbalized', timeoutMs: scaled(5_000) }), true);
  },
});

describeEngineConformance('anthropic', {
  async start() {
    const fake = await startAnthropicFake();
    return subject(fake, createAnthropicEngine({ baseUrl: fake.url, apiKey: 'sk-ant-conformance', model: 'claude-test', timeoutMs: scaled(5_000) }), true);
  },
});
