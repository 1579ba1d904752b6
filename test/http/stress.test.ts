import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { factsText } from '../fakes/openai-fake.js';
import { CHOICE, NOUL, SCORE } from '../support/requests.js';
import { isSufficiencyProbe, tokens } from '../support/scripts.js';
import { startWithOpenAI, type Running } from '../support/service.js';

const FACTS = [
  'The team knows SQL well.',
  'The service needs transactions across several tables.',
  'Traffic is modest, about fifty requests a second.',
  'Nobody on the team has run MongoDB in production.',
];
/** PostgreSQL's probability when the fact at that index is left out. */
const WITHOUT = [0.7, 0.3, 0.8, 0.75];

describe('stress depth', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());
  beforeEach(() => svc.fake.reset());

  it('re-asks reversed and without each fact, and names the decisive fact', async () => {
    const { key } = await svc.newKey(5);
    // Base call: main, probe and reversed questions; then one call per fact: all of
    // them asked together, so the provider answers none until all seven are in.
    const calls = 3 + FACTS.length;
    svc.fake.respond((body) => {
      const until = svc.fake.whenInFlight(calls);
      if (isSufficiencyProbe(body)) return { labels: tokens(body, { Yes: 0.9, No: 0.1 }), until };
      const missing = FACTS.findIndex((fact) => !factsText(body).includes(fact));
      const pg = missing < 0 ? 0.8 : WITHOUT[missing];
      return { labels: tokens(body, { PostgreSQL: pg, MongoDB: 1 - pg }), until };
    });
    const res = await svc.call('POST', '/v1/decisions', { key, json: { ...CHOICE, depth: 'stress' } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ selected: 'PostgreSQL', confidence: 0.6, probabilities: { PostgreSQL: 0.8, MongoDB: 0.2 } });
    const { stress } = res.body;
    expect(stress.checks).toEqual([
      { kind: 'reversed', agrees: true, shift: 0, result: res.body.result },
      ...FACTS.map((fact, factIndex) => ({
        kind: 'without-fact',
        factIndex,
        fact,
        agrees: WITHOUT[factIndex] > 0.5,
        shift: Math.round(Math.abs(0.8 - WITHOUT[factIndex]) * 1e4) / 1e4,
        result: {
          selected: WITHOUT[factIndex] > 0.5 ? 'PostgreSQL' : 'MongoDB',
          confidence: Math.round(Math.abs(2 * WITHOUT[factIndex] - 1) * 1e4) / 1e4,
          probabilities: { PostgreSQL: WITHOUT[factIndex], MongoDB: Math.round((1 - WITHOUT[factIndex]) * 1e4) / 1e4 },
        },
      })),
    ]);
    expect(stress.agreement).toBe(0.8);
    expect(stress.pivot).toEqual({ factIndex: 1, fact: FACTS[1], shift: 0.5, flips: true });
    expect(svc.fake.requests).toHaveLength(calls);
    // The checks ran together, one engine round, not one after another: all seven
    // calls were in flight at once at the provider.
    expect(svc.fake.maxInFlight, 'engine calls in flight at once').toBe(calls);
    expect(res.body.access).toEqual({ type: 'pass', passCredits: 0 });
  });

  it('presents the reversed check in reverse order, and reads it back into request order', async () => {
    const { key } = await svc.newKey(5);
    svc.fake.respond((body) => ({
      labels: tokens(body, isSufficiencyProbe(body) ? { Yes: 0.8, No: 0.2 } : { low: 0.1, medium: 0.3, high: 0.6 }),
    }));
    const res = await svc.call('POST', '/v1/decisions', { key, json: { ...SCORE, depth: 'stress' } });
    expect(res.status).toBe(200);
    const levelOrders = svc.fake.requests
      .map((r) => /Levels:\n((?:- .*\n?)+)/.exec(r.body.messages.at(-1).content)?.[1])
      .filter(Boolean)
      .map((block) =>
        block!
          .trim()
          .split('\n')
          .map((line) => line.split(': ')[1]),
      );
    expect(levelOrders).toContainEqual(['high', 'medium', 'low']);
    expect(levelOrders).toContainEqual(['low', 'medium', 'high']);
    const reversed = res.body.stress.checks[0];
    expect(reversed.kind).toBe('reversed');
    expect(reversed.result.probabilities).toEqual({ low: 0.1, medium: 0.3, high: 0.6 });
    expect(reversed.agrees).toBe(true);
  });

  it('a context of one fact has no without-fact checks and no pivot', async () => {
    const { key } = await svc.newKey(5);
    const res = await svc.call('POST', '/v1/decisions', {
      key,
      json: { ...NOUL, context: 'All tests pass and the on-call engineer is around', depth: 'stress' },
    });
    expect(res.status).toBe(200);
    expect(res.body.stress.checks.map((c: { kind: string }) => c.kind)).toEqual(['reversed']);
    expect(res.body.stress.pivot).toBeNull();
  });

  it('splits at most 12 facts, merging neighbours beyond that', async () => {
    const { key } = await svc.newKey(5);
    const context = Array.from({ length: 20 }, (_, i) => `- Fact number ${i + 1} holds.`).join('\n');
    const res = await svc.call('POST', '/v1/decisions', { key, json: { ...NOUL, context, depth: 'stress' } });
    const facts = res.body.stress.checks.filter((c: { kind: string }) => c.kind === 'without-fact');
    expect(facts).toHaveLength(12);
    const all = facts.map((c: { fact: string }) => c.fact).join('\n');
    for (let i = 1; i <= 20; i++) expect(all).toContain(`Fact number ${i} holds.`);
  });
});
