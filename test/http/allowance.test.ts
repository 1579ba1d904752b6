import { afterEach, describe, expect, it } from 'vitest';
import { audit } from '../ledger/helpers.js';
import { CHOICE, NOUL } from '../support/requests.js';
import { manualClock, startWithOpenAI, type Running } from '../support/service.js';

const STRESS = { ...CHOICE, depth: 'stress' };
let svc: Running;
afterEach(async () => {
  expect(audit(svc.dir)).toEqual([]);
  await svc.close();
});

async function decideTimes(key: string, n: number, json: object = NOUL) {
  const answers = [];
  for (let i = 0; i < n; i++) answers.push(await svc.call('POST', '/v1/decisions', { key, json }));
  return answers;
}

describe('the free allowance', () => {
  it('serves 20 free decisions a day, then 429 free_limit_reached until the next UTC midnight', async () => {
    const time = manualClock('2026-11-22T23:59:00.000Z');
    svc = await startWithOpenAI({ clock: time.clock });
    const { key } = await svc.newKey();

    const served = await decideTimes(key, 20);
    expect(served.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(served.map((r) => r.body.access.freeRemaining)).toEqual([...Array(20).keys()].map((i) => 19 - i));

    const refused = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('free_limit_reached');
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers.ratelimit).toBe('"free";r=0;t=60');
    expect(refused.headers['ratelimit-policy']).toBe('"free";q=20;w=86400');

    const usage = await svc.call('GET', '/v1/usage', { key });
    expect(usage.body).toEqual({
      day: '2026-11-22',
      freeLimit: 20,
      freeUsed: 20,
      freeRemaining: 0,
      passCredits: 0,
      resetsAt: '2026-11-23T00:00:00.000Z',
    });

    time.set('2026-11-23T00:00:00.001Z');
    const nextDay = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(nextDay.status).toBe(200);
    expect(nextDay.body.access).toEqual({ type: 'free', freeRemaining: 19 });
    expect((await svc.call('GET', '/v1/usage', { key })).body).toMatchObject({ day: '2026-11-23', freeUsed: 1 });
  });

  it('spends pass credits once the allowance is used, then 402 insufficient_credits', async () => {
    svc = await startWithOpenAI();
    const { key } = await svc.newKey(2);
    await decideTimes(key, 20);
    const paid = await decideTimes(key, 2);
    expect(paid.map((r) => r.body.access)).toEqual([
      { type: 'pass', passCredits: 1 },
      { type: 'pass', passCredits: 0 },
    ]);
    expect(paid[0].headers.ratelimit).toMatch(/^"free";r=0;t=\d+$/);
    const refused = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('insufficient_credits');
  });

  it('uses credits of the pass shared by two keys', async () => {
    svc = await startWithOpenAI();
    const first = await svc.newKey(6);
    const second = await svc.store.keys.create(new Date(), first.passId);
    const stress = await svc.call('POST', '/v1/decisions', { key: second.key, json: STRESS });
    expect(stress.body.access).toEqual({ type: 'pass', passCredits: 1 });
    expect((await svc.call('GET', '/v1/usage', { key: first.key })).body.passCredits).toBe(1);
  });
});

describe('stress decisions cost 5 credits of a funded pass', () => {
  it('402 pass_required on a pass with no credits, even with free decisions left', async () => {
    svc = await startWithOpenAI();
    const { key } = await svc.newKey();
    const res = await svc.call('POST', '/v1/decisions', { key, json: STRESS });
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('pass_required');
    expect((await svc.call('GET', '/v1/usage', { key })).body.freeUsed).toBe(0);
  });

  it('402 insufficient_credits with 4 credits; 5 are taken with 7', async () => {
    svc = await startWithOpenAI();
    const poor = await svc.newKey(4);
    const refused = await svc.call('POST', '/v1/decisions', { key: poor.key, json: STRESS });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('insufficient_credits');

    const { key } = await svc.newKey(7);
    const res = await svc.call('POST', '/v1/decisions', { key, json: STRESS });
    expect(res.status).toBe(200);
    expect(res.body.access).toEqual({ type: 'pass', passCredits: 2 });
    const usage = await svc.call('GET', '/v1/usage', { key });
    expect(usage.body).toMatchObject({ freeUsed: 0, passCredits: 2 });
  });
});

describe("the site's limits on free decisions", () => {
  it('429 rate_limited past the per-IP limit, while a funded pass goes on paying', async () => {
    svc = await startWithOpenAI({ limits: { freePerIp: 3 } });
    const a = await svc.newKey();
    const b = await svc.newKey(1);
    expect((await decideTimes(a.key, 3)).every((r) => r.status === 200)).toBe(true);
    const limited = await svc.call('POST', '/v1/decisions', { key: a.key, json: NOUL });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);

    const paid = await svc.call('POST', '/v1/decisions', { key: b.key, json: NOUL });
    expect(paid.status).toBe(200);
    expect(paid.body.access).toEqual({ type: 'pass', passCredits: 0 });
    expect((await svc.call('GET', '/v1/usage', { key: b.key })).body.freeUsed).toBe(0);
  });

  it('429 rate_limited past the global limit', async () => {
    svc = await startWithOpenAI({ limits: { freePerSite: 2 } });
    const keys = await Promise.all([svc.newKey(), svc.newKey(), svc.newKey()]);
    const answers = await Promise.all(keys.map(({ key }) => svc.call('POST', '/v1/decisions', { key, json: NOUL })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 429]);
  });
});
