import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHOICE, NOUL } from '../support/requests.js';
import { holdLock, type LockHolder } from '../ledger/lock-holder.js';
import { startWithOpenAI, type Running } from '../support/service.js';

/** One sample's value from Prometheus text: `name{labels} value`, labels in any order. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describe('health, readiness and metrics, scraped as a load balancer and Prometheus would', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());
  const scrape = async () => {
    const res = await svc.call('GET', '/metrics');
    expect(res.status).toBe(200);
    return res.text;
  };

  it('/healthz says the process is up; /readyz that the ledger takes writes and the engine answers its models list', async () => {
    expect((await svc.call('GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await svc.call('GET', '/readyz')).body).toEqual({ status: 'ready', checks: { ledger: 'ok', engine: 'ok' } });
    expect(svc.fake.probes.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models']);
    expect((await svc.call('POST', '/healthz')).status).toBe(405);
  });

  it('counts decisions by channel, mode, depth and outcome, refusals by code, charges by what paid, and times the engine and the ledger', async () => {
    const free = await svc.newKey();
    const funded = await svc.newKey(10);
    await svc.call('POST', '/v1/decisions', { key: free.key, json: NOUL });
    await svc.call('POST', '/v1/decisions', { key: free.key, json: NOUL, headers: { 'idempotency-key': 'once' } });
    await svc.call('POST', '/v1/decisions', { key: free.key, json: NOUL, headers: { 'idempotency-key': 'once' } });
    expect((await svc.call('POST', '/v1/decisions', { key: free.key, json: { ...CHOICE, depth: 'stress' } })).status).toBe(402);
    expect((await svc.call('POST', '/v1/decisions', { key: funded.key, json: { ...CHOICE, depth: 'stress' } })).status).toBe(200);
    svc.fake.respond(() => ({ status: 503 }));
    expect((await svc.call('POST', '/v1/decisions', { key: free.key, json: CHOICE })).status).toBe(503);
    svc.fake.respond();

    const text = await scrape();
    const decisions = (labels: Record<string, string>) => sample(text, 'decide_decisions_total', { channel: 'api', ...labels });
    expect(decisions({ mode: 'noul', depth: 'standard', outcome: 'ok' })).toBe(2);
    expect(decisions({ mode: 'noul', depth: 'standard', outcome: 'replayed' })).toBe(1);
    expect(decisions({ mode: 'choice', depth: 'stress', outcome: 'pass_required' })).toBe(1);
    expect(decisions({ mode: 'choice', depth: 'stress', outcome: 'ok' })).toBe(1);
    expect(decisions({ mode: 'choice', depth: 'standard', outcome: 'engine_unavailable' })).toBe(1);
    expect(sample(text, 'decide_refusals_total', { code: 'pass_required' })).toBe(1);
    expect(sample(text, 'decide_charged_decisions_total', { kind: 'free' })).toBe(2);
    expect(sample(text, 'decide_charged_decisions_total', { kind: 'credits' })).toBe(1);
    expect(sample(text, 'decide_engine_seconds_count', { engine: 'openai', outcome: 'ok' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'decide_engine_seconds_count', { engine: 'openai', outcome: 'unavailable' })).toBe(1);
    expect(sample(text, 'decide_engine_seconds_bucket', { engine: 'openai', outcome: 'ok', le: '+Inf' })).toBe(
      sample(text, 'decide_engine_seconds_count', { engine: 'openai', outcome: 'ok' }),
    );
    // Every decision but the replay reserved (the ledger's refusal is an answer of the reserve, not its failure).
    expect(sample(text, 'decide_ledger_seconds_count', { operation: 'reserve', outcome: 'ok' })).toBe(5);
    expect(sample(text, 'decide_ledger_seconds_count', { operation: 'commit', outcome: 'ok' })).toBe(3);
    expect(sample(text, 'decide_ledger_seconds_count', { operation: 'release', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'decide_engine_running')).toBe(0);
    expect(text).toContain('# TYPE decide_decisions_total counter');
    expect(text).toContain('# TYPE decide_engine_seconds histogram');
    expect(text).not.toContain(free.key);
  });

  it('/readyz turns 503 naming the failing check when the engine stops answering, and says why only to the operator', async () => {
    const other = await startWithOpenAI();
    try {
      other.fake.modelsStatus = 401;
      const res = await other.call('GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'not_ready', checks: { ledger: 'ok', engine: 'failing' } });
      expect(res.text).not.toContain('401');
      expect(
        other.logs.find((line) => line.startsWith('readiness: the engine check fails: openai engine refused the key at')),
      ).toBeDefined();
    } finally {
      await other.close();
    }
  });
});

describe('/readyz when the ledger cannot take a write', () => {
  it('turns 503 naming the ledger while another process holds its write lock, says why only to the operator, and 200 once it is free', async () => {
    // A SQLite file takes no write while another process (a sqlite3 shell, a script)
    // holds its lock: the readiness check's empty write waits the lock wait, meant to run out here.
    const svc = await startWithOpenAI({ ledger: { lockWaitMs: 300 } });
    let lock: LockHolder | undefined;
    try {
      expect((await svc.call('GET', '/readyz')).status).toBe(200);
      lock = await holdLock(svc.dbPath);
      const res = await svc.call('GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toEqual({ status: 'not_ready', checks: { ledger: 'failing', engine: 'ok' } });
      const said = svc.logs.find((line) => line.startsWith('readiness: the ledger check fails: '));
      expect(said).toMatch(/lock/);
      expect(res.text).not.toMatch(/lock/);

      await lock.release();
      expect((await svc.call('GET', '/readyz')).body).toEqual({ status: 'ready', checks: { ledger: 'ok', engine: 'ok' } });
      expect(svc.logs).toContain('readiness: the ledger check passes again');
    } finally {
      if (lock?.holding) await lock.release();
      await svc.close();
    }
  });
});

describe('metrics behind a token (DECIDE_METRICS_TOKEN)', () => {
  const TOKEN = 'metrics-0123456789abcdef0123456789abcdef';
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI({ metricsToken: TOKEN });
  });
  afterAll(() => svc.close());

  it('answers 401 without it, the text with it; health stays open', async () => {
    expect((await svc.call('GET', '/metrics')).status).toBe(401);
    expect((await svc.call('GET', '/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const res = await svc.call('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('# HELP decide_decisions_total');
    expect((await svc.call('GET', '/healthz')).status).toBe(200);
  });
});
