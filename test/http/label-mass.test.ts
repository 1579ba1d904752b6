import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIBehaviour, offeredLabels } from '../fakes/openai-fake.js';
import { audit } from '../ledger/helpers.js';
import { CHOICE } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';

/**
 * The low-mass rule through the API: an answer says how much of the model's
 * next-token probability fell on its labels (`labelMass`), and one resting on less
 * than half of it is `unclear` whatever its renormalised figures say. The System One
 * routes, whose answers have no signal, refuse such a question instead.
 */
describe('labelMass and the low-mass rule', () => {
  let svc: Running;
  afterEach(() => svc?.close());

  /** The main question's readings put `onLabels` of their mass on A and B (3 : 1), the rest on "The". */
  const mainMass = (onLabels: number) =>
    svc.fake.respond(
      (body): OpenAIBehaviour =>
        offeredLabels(body).includes('Yes')
          ? { labels: { Yes: 0.9, No: 0.1 } }
          : { labels: { A: (onLabels * 3) / 4, B: onLabels / 4, The: 1 - onLabels } },
    );

  it('an answer on 0.4 of the mass is unclear, says why, and is charged as any answer; one on 0.9 leads', async () => {
    svc = await startWithOpenAI();
    const { key } = await svc.newKey();
    mainMass(0.4);
    const low = await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
    expect(low.status, low.text).toBe(200);
    expect(low.body.labelMass).toBeCloseTo(0.4, 4);
    // 0.75 against 0.25 would be directional: the figures are the rest of the mass, magnified.
    expect(Math.max(...(Object.values(low.body.result.probabilities) as number[]))).toBeCloseTo(0.75, 4);
    expect(low.body.signal).toBe('unclear');

    mainMass(0.9);
    const high = await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
    expect(high.body.labelMass).toBeCloseTo(0.9, 4);
    expect(high.body.signal).toBe('directional');
    expect((await svc.call('GET', '/v1/usage', { key })).body).toMatchObject({ freeUsed: 2 });
    expect(audit(svc.dir)).toEqual([]);
  });

  it('a System One question on 0.4 of the mass is refused, 502 in the format, and nothing is charged', async () => {
    svc = await startWithOpenAI();
    const { key } = await svc.newKey();
    svc.fake.respond(() => ({ labels: { Yes: 0.3, No: 0.1, The: 0.6 } }));
    const res = await svc.call('POST', '/v1/systemone', {
      key,
      json: { state: CHOICE.context, questions: { ship: { type: 'noul', instructions: 'Ship it?' } } },
    });
    expect(res.status).toBe(502);
    expect(res.body.detail).toMatchObject({
      error_type: 'engine_error',
      x_code: 'engine_bad_response',
      message: expect.stringContaining('question "ship": the model put only 0.400 of its next-token probability on the answers'),
    });
    expect((await svc.call('GET', '/v1/usage', { key })).body).toMatchObject({ freeUsed: 0 });

    svc.fake.respond(() => ({ labels: { Yes: 0.6, No: 0.3, The: 0.1 } }));
    const fine = await svc.call('POST', '/v1/systemone', {
      key,
      json: { state: CHOICE.context, questions: { ship: { type: 'noul', instructions: 'Ship it?' } } },
    });
    expect(fine.status).toBe(200);
    expect((await svc.call('GET', '/v1/usage', { key })).body).toMatchObject({ freeUsed: 1 });
  });
});
