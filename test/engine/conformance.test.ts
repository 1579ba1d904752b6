import { createAnthropicEngine } from '../../src/engine/anthropic.js';
import type { Engine } from '../../src/engine/engine.js';
import { createOpenAIEngine } from '../../src/engine/openai.js';
import { createSystemOneEngine } from '../../src/engine/systemone.js';
import { keysInOrder } from '../../src/json/key-order.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { CommonBehaviour, Fake } from '../fakes/http-fake.js';
import { offeredGroups, offeredOptions, questionKind, questionText, startOpenAIFake } from '../fakes/openai-fake.js';
import { startSystemOneFake } from '../fakes/systemone-fake.js';
import { describeEngineConformance, type ConformanceSubject } from './conformance.js';
import { scaled } from '../support/time.js';

/**
 * The options of each choice the prompts presented, in order: a plain question's, or
 * a grouped choice's group question's (its groups' members, every option in order);
 * the questions of that choice's groups, which share its instructions, show parts of it.
 */
function presentedInPrompts(fake: Fake<CommonBehaviour>): Array<{ instructions: string; labels: string[] }> {
  const choices = fake.requests.filter((r) => questionKind(r.body) === 'choice');
  const name = (text: string) => text.split(' — ')[0];
  const grouped = new Set(choices.filter((r) => offeredGroups(r.body).length > 0).map((r) => questionText(r.body)));
  return choices.flatMap((r) => {
    const groups = offeredGroups(r.body);
    if (groups.length > 0) return [{ instructions: questionText(r.body), labels: groups.flatMap((g) => g.members.map(name)) }];
    if (grouped.has(questionText(r.body))) return [];
    // The conformance options are bare labels or `label — description`.
    return [{ instructions: questionText(r.body), labels: offeredOptions(r.body).map((o) => name(o.text)) }];
  });
}

/** A fake and its engine as one subject; `presented` reads the prompts of the engines that send text, or the System One wire. */
function subject(fake: Fake<CommonBehaviour>, engine: Engine, prompts: boolean): ConformanceSubject {
  return {
    engine,
    async close() {
      await engine.close?.();
      await fake.close();
    },
    presentedChoices: prompts
      ? () => presentedInPrompts(fake)
      : () =>
          fake.requests.flatMap((r) =>
            Object.values<any>(r.body.questions ?? {})
              .filter((q) => q.type === 'choice')
              // The fake records the key order the wire carried.
              .map((q) => ({ instructions: q.instructions, labels: keysInOrder(q.criteria) })),
          ),
    slowDown: () => fake.respond(() => ({ hang: true })),
    calls: () => fake.requests.length,
  };
}

describeEngineConformance('systemone', {
  async start() {
    const fake = await startSystemOneFake();
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
    return subject(
      fake,
      createOpenAIEngine({ baseUrl: fake.url, model: 'fake-model', probabilities: 'verbalized', timeoutMs: scaled(5_000) }),
      true,
    );
  },
});

describeEngineConformance('anthropic', {
  async start() {
    const fake = await startAnthropicFake();
    return subject(
      fake,
      createAnthropicEngine({ baseUrl: fake.url, apiKey: 'sk-ant-conformance', model: 'claude-test', timeoutMs: scaled(5_000) }),
      true,
    );
  },
});
