import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit } from '../../ledger/helpers.js';
import { LOCAL_RUNTIME, NEEDS_LOCAL_RUNTIME } from '../../support/local-runtime.js';
import { CHOICE } from '../../support/requests.js';
import { startWithLocal } from '../../support/service.js';
import { scaled } from '../../support/time.js';

/**
 * The local engine saturated: 64 decisions at once against a 3 s deadline. Before
 * admission, the context's sequences were shared by hundreds of decisions and those
 * past the deadline ended in 504 after holding a charge; now each is answered or
 * refused at once, and the books show exactly the answered ones.
 */
describe.skipIf(!LOCAL_RUNTIME)(`the local engine saturated ${NEEDS_LOCAL_RUNTIME}`, () => {
  let svc: Awaited<ReturnType<typeof startWithLocal>>;
  beforeAll(async () => {
    svc = await startWithLocal({ engineTimeoutMs: scaled(3_000) });
  });
  afterAll(() => svc.close());

  const CREDITS = 200;

  /** 48 standard and 16 stress decisions at once on one funded key; what each got, and the key's books. */
  async function wave() {
    const { key } = await svc.newKey(CREDITS);
    const requests = Array.from({ length: 64 }, (_, i) => ({ ...CHOICE, depth: i % 4 === 3 ? 'stress' : 'standard' }));
    const answers = await Promise.all(requests.map((json) => svc.call('POST', '/v1/decisions', { key, json })));
    const usage = (await svc.call('GET', '/v1/usage', { key })).body;
    const served = (depth: string) => answers.filter((a, i) => a.status === 200 && requests[i].depth === depth).length;
    return { answers, usage, standard: served('standard'), stress: served('stress') };
  }

  it('64 concurrent decisions with a 3 s deadline: no 504, the rest 200 or 429 with Retry-After, the ledger exact', async () => {
    // Cold, and again once decisions have been timed and the queue opens.
    for (const round of ['cold', 'timed']) {
      const { answers, usage, standard, stress } = await wave();
      const statuses = answers.map((a) => a.status);
      expect(
        statuses.filter((s) => s !== 200 && s !== 429),
        `${round}: statuses ${statuses.join(' ')}`,
      ).toEqual([]);
      for (const refused of answers.filter((a) => a.status === 429)) {
        expect(refused.body.code).toBe('engine_busy');
        expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      if (round === 'cold')
        expect(statuses.filter((s) => s === 429).length, 'refused with every slot taken and nothing timed').toBeGreaterThan(0);
      expect(standard + stress, `${round}: answered`).toBeGreaterThan(0);
      expect(usage.freeUsed).toBe(Math.min(20, standard));
      expect(usage.passCredits).toBe(CREDITS - 5 * stress - Math.max(0, standard - 20));
    }
    expect(audit(svc.dir)).toEqual([]);
  });
});
