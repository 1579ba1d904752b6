import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DecideClient, DecideError } from '../../src/client/index.js';
import { DecisionResponse, KeyRevoked, Metrics, Usage } from '../../src/contract/index.js';
import { CHOICE, NOUL, SCORE } from '../support/requests.js';
import { scripted } from '../support/scripts.js';
import { startWithOpenAI, type Running } from '../support/service.js';

/** Waits for `promise` to reject, and returns the DecideError it rejected with. */
async function failure(promise: Promise<unknown>): Promise<DecideError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call should have failed with a DecideError').toBeInstanceOf(DecideError);
  return error as DecideError;
}

describe('DecideClient against the real service', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI({ limits: { freePerKey: 3 } });
  });
  afterAll(() => svc.close());
  beforeEach(() => svc.fake.reset());

  it('decides in each mode; the answers are the contract types, validated', async () => {
    const { key } = await svc.newKey();
    const client = new DecideClient({ url: svc.url, apiKey: key });
    svc.fake.respond(
      scripted({ PostgreSQL: 0.8, MongoDB: 0.2, Yes: 0.7, No: 0.3, low: 0.1, medium: 0.2, high: 0.7 }, { Yes: 0.9, No: 0.1 }),
    );

    const choice = await client.decide(CHOICE);
    expect(DecisionResponse.parse(choice)).toEqual(choice);
    expect(choice.result).toMatchObject({ selected: 'PostgreSQL', probabilities: { PostgreSQL: 0.8, MongoDB: 0.2 } });
    expect(choice.signal).toBe('directional');

    const noul = await client.decide({ ...NOUL });
    expect(noul.result).toEqual({ yesProbability: 0.7 });
    expect(noul.signal).toBe('yes');

    const score = await client.raw.decide({ ...SCORE, levels: [...SCORE.levels] });
    expect(score.status).toBe(200);
    expect(score.attempts).toBe(1);
    expect(score.replayed).toBe(false);
    // The exact body text travels with the parsed value.
    expect(JSON.parse(score.text)).toEqual(score.data);
    expect(score.data.access).toEqual({ type: 'free', freeRemaining: 0 });
  });

  it('sends a fresh Idempotency-Key with every decision, and replays when the caller reuses one', async () => {
    const { key } = await svc.newKey();
    const client = new DecideClient({ url: svc.url, apiKey: key });
    const first = await client.raw.decide(NOUL, { idempotencyKey: 'ci-run-77' });
    const again = await client.raw.decide(NOUL, { idempotencyKey: 'ci-run-77' });
    expect(again.replayed).toBe(true);
    expect(again.text).toBe(first.text);
    expect((await client.usage()).freeUsed).toBe(1);

    // Two calls without a caller's key are two decisions.
    await client.decide(NOUL);
    await client.decide(NOUL);
    expect((await client.usage()).freeUsed).toBe(3);
  });

  it('usage, metrics (no key needed) and revoke answer in the contract; a revoked key then gets 401', async () => {
    const { key, keyHint } = await svc.newKey(7);
    const client = new DecideClient({ url: svc.url + '/', apiKey: key });
    expect(client.url).toBe(svc.url);
    const usage = await client.usage();
    expect(Usage.parse(usage)).toEqual(usage);
    expect(usage).toMatchObject({ freeLimit: 3, freeUsed: 0, freeRemaining: 3, passCredits: 7 });

    const metrics = await new DecideClient({ url: svc.url }).metrics();
    expect(Metrics.parse(metrics)).toEqual(metrics);

    const revoked = await client.revoke();
    expect(KeyRevoked.parse(revoked)).toEqual(revoked);
    expect(revoked.keyHint).toBe(keyHint);

    const refused = await failure(client.usage());
    expect(refused).toMatchObject({ status: 401, code: 'unauthorized', retryAfter: undefined });
    expect(refused.message).toMatch(/key/i);
    expect(refused.fromService).toBe(true);
  });

  it('errors are one typed DecideError: status, code, message naming the field, retryAfter', async () => {
    const never = await svc.newKey();
    const retried: number[] = [];
    const client = new DecideClient({ url: svc.url, apiKey: never.key, onRetry: (event) => retried.push(event.attempt) });

    const invalid = await failure(client.decide({ ...CHOICE, options: ['PostgreSQL', 'postgresql'] }));
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(invalid.message).toContain('options.1');
    expect(invalid.requestId).toMatch(/^[A-Za-z0-9_=-]{8,128}$/);

    const stress = await failure(client.decide({ ...CHOICE, depth: 'stress' }));
    expect(stress).toMatchObject({ status: 402, code: 'pass_required' });
    expect(stress.requestId).toMatch(/^[A-Za-z0-9_=-]{8,128}$/);
    expect(stress.requestId).not.toBe(invalid.requestId);

    for (let i = 0; i < 3; i++) await client.decide(NOUL);
    const calls = svc.fake.requests.length;
    const spent = await failure(client.decide(NOUL));
    expect(spent).toMatchObject({ status: 429, code: 'free_limit_reached' });
    expect(spent.retryAfter).toBeGreaterThan(0);
    // Not retried: the allowance comes back at midnight, not in a few seconds.
    expect(retried).toEqual([]);
    expect(svc.fake.requests.length).toBe(calls);

    const anonymous = await failure(new DecideClient({ url: svc.url }).usage());
    expect(anonymous).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('an engine failure that lasts is returned after the retries, and none of them is charged', async () => {
    const { key } = await svc.newKey();
    const retries: number[] = [];
    const client = new DecideClient({ url: svc.url, apiKey: key, onRetry: (event) => retries.push(event.attempt) });
    svc.fake.respond(() => ({ status: 500, headers: { 'retry-after': '1' } }));
    const error = await failure(client.decide(NOUL));
    expect(error).toMatchObject({ status: 503, code: 'engine_unavailable', retryAfter: 1 });
    expect(retries).toEqual([1, 2]);
    // The id of the last attempt, the one the service's error line names.
    expect(error.requestId).toMatch(/^[A-Za-z0-9_=-]{8,128}$/);
    expect(svc.logs.filter((line) => line.includes(error.requestId!))).not.toEqual([]);
    expect((await client.usage()).freeUsed).toBe(0);
  });
});
