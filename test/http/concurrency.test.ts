import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit, chargeStates } from '../ledger/helpers.js';
import { CHOICE, NOUL } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';

describe('simultaneous decisions never overspend', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
    // Slow enough that every request is in flight at once.
    svc.fake.respond(() => ({ delayMs: 100 }));
  });
  afterAll(() => svc.close());

  const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

  it('150 standard decisions on 20 free + 10 credits: exactly 30 served', async () => {
    const { key } = await svc.newKey(10);
    const answers = await Promise.all(Array.from({ length: 150 }, () => svc.call('POST', '/v1/decisions', { key, json: NOUL })));
    const statuses = answers.map((r) => r.status);
    expect(count(statuses, 200)).toBe(30);
    expect(count(statuses, 402)).toBe(120);
    expect(answers.filter((r) => r.status === 200 && r.body.access.type === 'free')).toHaveLength(20);
    expect(answers.filter((r) => r.status === 402).every((r) => r.body.code === 'insufficient_credits')).toBe(true);
    const usage = await svc.call('GET', '/v1/usage', { key });
    expect(usage.body).toMatchObject({ freeUsed: 20, freeRemaining: 0, passCredits: 0 });
    expect(audit(svc.dir)).toEqual([]);
  });

  it('20 stress decisions on 12 credits: exactly 2 served, 2 credits left', async () => {
    const { key } = await svc.newKey(12);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => svc.call('POST', '/v1/decisions', { key, json: { ...CHOICE, depth: 'stress' } })),
    );
    const statuses = answers.map((r) => r.status);
    expect(count(statuses, 200)).toBe(2);
    expect(count(statuses, 402)).toBe(18);
    expect((await svc.call('GET', '/v1/usage', { key })).body.passCredits).toBe(2);
    expect(audit(svc.dir)).toEqual([]);
    expect(chargeStates(svc.dir).reserved ?? 0).toBe(0);
  });
});
