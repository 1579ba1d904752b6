import { afterEach, describe, expect, it } from 'vitest';
import { choiceAnswer } from '../fakes/systemone-fake.js';
import { CHOICE } from '../support/requests.js';
import { ENGINE_SECRET, startWithSystemOne } from '../support/service.js';

/**
 * A 502's sentence is for the caller: it names their question, not the reading the
 * decision made of it internally ("main"), and carries no part of the engine's key,
 * even one the provider echoed cut short.
 */
describe("an unusable engine answer, in the caller's words", () => {
  let svc: Awaited<ReturnType<typeof startWithSystemOne>> | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it('names the question asked rather than "main"', async () => {
    svc = await startWithSystemOne();
    svc.fake.respond(() => ({ answer: (id: string) => (id === 'main' ? choiceAnswer({ PostgreSQL: 0, MongoDB: 0 }) : undefined) }));
    const { key } = await svc.newKey();
    const res = await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe(
      `the decision engine's answer was unusable: systemone engine gave ${JSON.stringify(CHOICE.question)} a distribution with no usable mass`,
    );
  });

  it('never carries a truncated copy of the engine key the provider echoed', async () => {
    svc = await startWithSystemOne();
    const echoed = ENGINE_SECRET.slice(0, 14); // "sk-engine-5ecr", as providers show a key cut short
    svc.fake.respond(() => ({
      answer: (id: string) => (id === 'main' ? choiceAnswer({ PostgreSQL: 0.5, MongoDB: 0.4, [`${echoed}…`]: 0.1 }) : undefined),
    }));
    const { key } = await svc.newKey();
    const res = await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
    expect(res.status).toBe(502);
    expect(res.body.error).toContain('labels it was not offered');
    expect(res.text).not.toContain(echoed);
    expect(res.text).not.toContain(ENGINE_SECRET.slice(0, 8));
  });
});
