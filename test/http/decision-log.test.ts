import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { modernClient } from '../mcp/clients.js';
import { CHOICE, NOUL, SCORE } from '../support/requests.js';
import { scripted } from '../support/scripts.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { browserOf, ledgerRows } from '../web/helpers.js';

/** Every row of the decision log, oldest first. */
const logged = (svc: Running) => ledgerRows<Record<string, unknown>>(svc, 'SELECT * FROM decisions ORDER BY id');

/**
 * The decision log through every door of the real server: one entry per decision
 * served (the API, the MCP tool server, the pass page), none for a replay or a
 * failure, none at all when the log is off, and never a key.
 */
describe('the decision log at level full', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI({ decisionLog: 'full' });
  });
  afterAll(() => svc.close());
  afterEach(() => svc.fake.respond());

  it('logs an API decision once, with what it was and what it cost; its replay logs nothing', async () => {
    const { key, passId, keyId } = await svc.newKey(10);
    const headers = { 'idempotency-key': 'log-once' };
    const first = await svc.call('POST', '/v1/decisions', { key, json: { ...CHOICE, depth: 'stress' }, headers });
    expect(first.status).toBe(200);
    const replay = await svc.call('POST', '/v1/decisions', { key, json: { ...CHOICE, depth: 'stress' }, headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');

    const rows = logged(svc).filter((r) => r.pass_id === passId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      key_id: keyId,
      door: 'api',
      mode: 'choice',
      depth: 'stress',
      credits: 5,
      signal: first.body.signal,
      top: first.body.result.selected,
      top_probability: first.body.result.probabilities[first.body.result.selected],
      confidence: first.body.result.confidence,
      question: CHOICE.question,
      context: CHOICE.context,
      choices: JSON.stringify(CHOICE.options),
      answer: first.text,
    });
    // A free standard decision costs nothing; the top answer of a noul is the likelier side.
    const noul = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    const yes = noul.body.result.yesProbability;
    expect(logged(svc).at(-1)).toMatchObject({ credits: 0, mode: 'noul', top: yes >= 0.5 ? 'yes' : 'no', choices: null });
  });

  it('logs a decision of the MCP tool server once, as MCP', async () => {
    const { key, passId } = await svc.newKey();
    const client = await modernClient(svc.url, key);
    try {
      const result = await client.callTool({ name: 'weigh_decision', arguments: { ...SCORE } });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const rows = logged(svc).filter((r) => r.pass_id === passId);
    expect(rows.map((r) => [r.door, r.mode])).toEqual([['mcp', 'score']]);
    expect(SCORE.levels).toContain(rows[0].top);
  });

  it('logs a decision of the pass page once, as the page; the page then lists it', async () => {
    const browser = browserOf(svc);
    const { id: keyId, keyHint } = await browser.newKey();
    // The answer: 54.0 % for PostgreSQL, a confidence of 0.08.
    svc.fake.respond(scripted({ PostgreSQL: 0.54, MongoDB: 0.46 }, { Yes: 0.9, No: 0.1 }));
    const res = await browser.call('POST', '/v1/web/decisions', { json: { ...CHOICE, keyId } });
    expect(res.status).toBe(200);
    const rows = logged(svc).filter((r) => r.key_id === keyId);
    expect(rows.map((r) => r.door)).toEqual(['web']);

    const page = await browser.call('GET', '/pass');
    expect(page.text).toContain('Recent decisions');
    expect(page.text).toContain(`<code>${keyHint}</code>`);
    // The top answer with its probability, the confidence in a column of its own, as a
    // number from 0 to 1 that the section says is no probability.
    expect(res.body.result).toMatchObject({ selected: 'PostgreSQL', confidence: 0.08 });
    expect(page.text).toContain('<td data-label="Top answer">PostgreSQL, 54.0%</td>');
    expect(page.text).toContain('<td data-label="Confidence">0.08</td>');
    expect(page.text).toContain('0 = evenly split, 1 = certain');
    expect(page.text).not.toMatch(/data-label="Top answer">[^<]*\(\d+%\)/);
  });

  it('keeps the same two numbers in every mode: the top probability, and the confidence the API defines', async () => {
    const { key, passId } = await svc.newKey();
    const cases: Array<{
      request: { mode: string };
      script: Record<string, number>;
      top: string;
      topProbability: number;
      confidence: number;
    }> = [
      { request: CHOICE, script: { PostgreSQL: 0.54, MongoDB: 0.46 }, top: 'PostgreSQL', topProbability: 0.54, confidence: 0.08 },
      { request: NOUL, script: { Yes: 0.54, No: 0.46 }, top: 'yes', topProbability: 0.54, confidence: 0.08 },
      { request: NOUL, script: { Yes: 0.1, No: 0.9 }, top: 'no', topProbability: 0.9, confidence: 0.8 },
      { request: SCORE, script: { low: 0.384, medium: 0.235, high: 0.381 }, top: 'low', topProbability: 0.384, confidence: 0.076 },
    ];
    for (const { request, script } of cases) {
      svc.fake.respond(scripted(script, { Yes: 0.9, No: 0.1 }));
      expect((await svc.call('POST', '/v1/decisions', { key, json: request })).status).toBe(200);
    }
    const rows = logged(svc).filter((r) => r.pass_id === passId);
    expect(rows.map((r) => [r.mode, r.top, r.top_probability, r.confidence])).toEqual(
      cases.map((c) => [c.request.mode, c.top, c.topProbability, c.confidence]),
    );
  });

  it('logs nothing for a decision that failed, and the books show it was not charged', async () => {
    const { key, passId } = await svc.newKey(3);
    svc.fake.respond(() => ({ status: 500, body: '{"error":{"message":"boom"}}' }));
    const res = await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(logged(svc).filter((r) => r.pass_id === passId)).toEqual([]);
  });

  it('a refused decision (no credits for a stress test) logs nothing', async () => {
    const { key, passId } = await svc.newKey();
    const res = await svc.call('POST', '/v1/decisions', { key, json: { ...CHOICE, depth: 'stress' } });
    expect(res.status).toBe(402);
    expect(logged(svc).filter((r) => r.pass_id === passId)).toEqual([]);
  });

  it('never holds a key: no key of any caller appears in the table', async () => {
    const { key } = await svc.newKey();
    await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
    const table = JSON.stringify(logged(svc));
    expect(table).not.toContain(key);
    expect(table).not.toMatch(/dcd_/);
  });
});

describe('the decision log at level metadata', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI({ decisionLog: 'metadata' });
  });
  afterAll(() => svc.close());

  it('keeps what was decided, not the text asked or answered', async () => {
    const { key } = await svc.newKey();
    const res = await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
    expect(res.status).toBe(200);
    expect(logged(svc)).toEqual([
      expect.objectContaining({
        mode: 'choice',
        top: res.body.result.selected,
        question: null,
        context: null,
        choices: null,
        answer: null,
      }),
    ]);
  });
});

describe('the decision log off (the default)', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());

  it('writes nothing through any door, and the pass page has no such section', async () => {
    const { key } = await svc.newKey();
    expect((await svc.call('POST', '/v1/decisions', { key, json: CHOICE })).status).toBe(200);
    const client = await modernClient(svc.url, key);
    await client.callTool({ name: 'weigh_decision', arguments: { ...NOUL } }).finally(() => client.close());
    const browser = browserOf(svc);
    const { id: keyId } = await browser.newKey();
    expect((await browser.call('POST', '/v1/web/decisions', { json: { ...CHOICE, keyId } })).status).toBe(200);
    expect(logged(svc)).toEqual([]);
    const page = await browser.call('GET', '/pass');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('decision-log');
  });
});
