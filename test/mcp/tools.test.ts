import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DecisionResponse, Usage } from '../../src/contract/index.js';
import { listedTools } from '../../src/mcp/tools.js';
import { factsText } from '../fakes/openai-fake.js';
import { audit } from '../ledger/helpers.js';
import { CHOICE, NOUL, SCORE } from '../support/requests.js';
import { isSufficiencyProbe, scripted, tokens } from '../support/scripts.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { lineOf, MODERN, modernClient } from './clients.js';

/** The SDK 2.x client (2026-07-28) against the real server: the tools and their effects. */
describe('MCP tools over streamable HTTP', () => {
  let svc: Running;
  const open: Client[] = [];
  beforeAll(async () => {
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());
  beforeEach(() => svc.fake.reset());
  afterEach(async () => {
    await Promise.all(open.splice(0).map((client) => client.close()));
  });
  const connect = async (key?: string) => {
    const client = await modernClient(svc.url, key);
    open.push(client);
    return client;
  };

  it('lists three tools whose schemas come from the contract', async () => {
    const client = await connect();
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['weigh_decision', 'stress_test_decision', 'get_usage']);
    const [weigh, stress, usage] = tools;
    for (const tool of tools) {
      expect(tool.description).toBeTruthy();
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    // A flat object: the DecisionRequest's fields without depth, with the contract's bounds.
    expect(weigh.inputSchema).toMatchObject({
      type: 'object',
      required: ['mode', 'question', 'context'],
      additionalProperties: false,
      properties: {
        mode: { enum: ['choice', 'noul', 'score'] },
        question: { type: 'string', minLength: 8, maxLength: 300 },
        context: { type: 'string', minLength: 20, maxLength: 2000 },
        options: { type: 'array', minItems: 2, maxItems: 6, items: { minLength: 2, maxLength: 100 } },
        levels: { type: 'array', minItems: 3, maxItems: 3 },
      },
    });
    expect(Object.keys(weigh.inputSchema.properties ?? {})).not.toContain('depth');
    expect(stress.inputSchema).toEqual(weigh.inputSchema);
    expect(weigh.outputSchema?.required).toEqual(
      expect.arrayContaining(['mode', 'result', 'signal', 'contextSufficiency', 'access', 'timing']),
    );
    expect(usage.inputSchema).toMatchObject({ properties: {}, additionalProperties: false });
    expect(usage.outputSchema?.required).toEqual(['day', 'freeLimit', 'freeUsed', 'freeRemaining', 'passCredits', 'resetsAt']);
    expect(usage.annotations?.readOnlyHint).toBe(true);
    // The bridge's built-in list (used when the server is unreachable) is the same.
    expect(JSON.parse(JSON.stringify(listedTools()))).toEqual(tools);
  });

  it('weigh_decision, choice: the DecisionResponse as structuredContent and a short human line', async () => {
    const { key } = await svc.newKey();
    const client = await connect(key);
    svc.fake.respond(scripted({ PostgreSQL: 0.6, MongoDB: 0.2, The: 0.2 }, { Yes: 0.7, No: 0.1, Maybe: 0.2 }));
    const result = await client.callTool({ name: 'weigh_decision', arguments: { ...CHOICE } });
    expect(result.isError).toBeFalsy();
    const response = DecisionResponse.parse(result.structuredContent);
    expect(response.result).toEqual({ selected: 'PostgreSQL', confidence: 0.5, probabilities: { PostgreSQL: 0.75, MongoDB: 0.25 } });
    expect(response.signal).toBe('directional');
    expect(response.stress).toBeNull();
    expect(response.access).toEqual({ type: 'free', freeRemaining: 19 });
    expect(lineOf(result)).toBe(
      'PostgreSQL 75 % (directional) · confidence 0.50: 0 = evenly split, 1 = certain · context sufficiency 0.875 · label mass 0.8 · 19 free left',
    );
    // The record also travels as JSON text, for clients that ignore structuredContent.
    const blocks = result.content as Array<{ type: string; text: string }>;
    expect(JSON.parse(blocks[1].text)).toEqual(result.structuredContent);
  });

  it('weigh_decision, noul and score', async () => {
    const { key } = await svc.newKey();
    const client = await connect(key);
    svc.fake.respond(scripted({ Yes: 0.62, No: 0.38 }, { Yes: 0.9, No: 0.1 }));
    const noul = await client.callTool({ name: 'weigh_decision', arguments: { ...NOUL } });
    expect(DecisionResponse.parse(noul.structuredContent).result).toEqual({ yesProbability: 0.62 });
    expect(lineOf(noul)).toBe('yes 62 % (yes) · context sufficiency 0.9 · label mass 1 · 19 free left');

    svc.fake.respond(scripted({ low: 0.2, medium: 0.5, high: 0.3 }, { Yes: 0.3, No: 0.7 }));
    const score = await client.callTool({ name: 'weigh_decision', arguments: { ...SCORE } });
    const response = DecisionResponse.parse(score.structuredContent);
    expect(response.result).toEqual({
      score: 1.1,
      likeliest: 'medium',
      confidence: 0.25,
      probabilities: { low: 0.2, medium: 0.5, high: 0.3 },
    });
    expect(lineOf(score)).toBe(
      'medium 50 % (needs-context) · confidence 0.25: 0 = evenly split, 1 = certain · score 1.1 of 0–2 · context sufficiency 0.3 · label mass 1 · 18 free left',
    );

    // The likeliest level, not the level nearest the mean: a split between low and high
    // has the mean 1.0 (medium) but names low, and its confidence is no percentage.
    svc.fake.respond(scripted({ low: 0.384, medium: 0.235, high: 0.381 }, { Yes: 0.9, No: 0.1 }));
    const split = await client.callTool({ name: 'weigh_decision', arguments: { ...SCORE } });
    expect(DecisionResponse.parse(split.structuredContent).result).toMatchObject({ likeliest: 'low', score: 0.997 });
    expect(lineOf(split)).toMatch(/^low 38 % \(unclear\) · confidence 0\.08: 0 = evenly split, 1 = certain · score 0\.997 of 0–2 · /);
  });

  it('stress_test_decision: 5 credits, the checks and the decisive fact', async () => {
    const created = await svc.newKey(7);
    const client = await connect(created.key);
    svc.fake.respond((body) => {
      if (isSufficiencyProbe(body)) return { labels: tokens(body, { Yes: 0.9, No: 0.1 }) };
      const pg = factsText(body).includes('transactions across several tables') ? 0.8 : 0.3;
      return { labels: tokens(body, { PostgreSQL: pg, MongoDB: 1 - pg }) };
    });
    const result = await client.callTool({ name: 'stress_test_decision', arguments: { ...CHOICE } });
    expect(result.isError).toBeFalsy();
    const response = DecisionResponse.parse(result.structuredContent);
    expect(response.access).toEqual({ type: 'pass', passCredits: 2 });
    expect(response.stress?.pivot).toMatchObject({ factIndex: 1, flips: true });
    expect(response.stress?.checks[0].kind).toBe('reversed');
    expect(lineOf(result)).toBe(
      // The engine's own 0.9: the checks do not enter it (docs/api.md).
      'PostgreSQL 80 % (directional) · confidence 0.60: 0 = evenly split, 1 = certain · context sufficiency 0.9 · label mass 1 · agreement 80 % · ' +
        'verdict fragile: one fact decides it (without fact 2 the answer changes) · ' +
        'decisive fact “The service needs transactions across several tables.”: without it the answer shifts by 50 % and flips: ' +
        'the decision rests on this fact · 2 credits left',
    );
    // The free allowance is untouched: stress never uses it.
    const usage = await client.callTool({ name: 'get_usage', arguments: {} });
    expect(Usage.parse(usage.structuredContent)).toMatchObject({ freeUsed: 0, passCredits: 2 });
    expect(audit(svc.dir)).toEqual([]);
  });

  it('get_usage: the usage record of GET /v1/usage, free', async () => {
    const { key } = await svc.newKey(40);
    const client = await connect(key);
    await client.callTool({ name: 'weigh_decision', arguments: { ...NOUL } });
    const result = await client.callTool({ name: 'get_usage', arguments: {} });
    const again = await client.callTool({ name: 'get_usage', arguments: {} });
    const http = await svc.call('GET', '/v1/usage', { key });
    expect(result.structuredContent).toEqual(http.body);
    expect(again.structuredContent).toEqual(http.body);
    expect(http.body).toMatchObject({ freeUsed: 1, freeRemaining: 19, passCredits: 40 });
    expect(lineOf(result)).toBe(`19 of 20 free decisions left today · 40 pass credits · resets ${http.body.resetsAt}`);
  });

  it('shares the ledger with the HTTP API: the allowance, then pass credits', async () => {
    const { key } = await svc.newKey(2);
    const client = await connect(key);
    for (let i = 0; i < 19; i++) expect((await svc.call('POST', '/v1/decisions', { key, json: NOUL })).status).toBe(200);
    const last = await client.callTool({ name: 'weigh_decision', arguments: { ...NOUL } });
    expect(DecisionResponse.parse(last.structuredContent).access).toEqual({ type: 'free', freeRemaining: 0 });
    const paid = await client.callTool({ name: 'weigh_decision', arguments: { ...NOUL } });
    expect(DecisionResponse.parse(paid.structuredContent).access).toEqual({ type: 'pass', passCredits: 1 });
    expect(lineOf(paid)).toMatch(/· 1 credit left$/);
    const http = await svc.call('POST', '/v1/decisions', { key, json: NOUL });
    expect(http.body.access).toEqual({ type: 'pass', passCredits: 0 });
    expect(audit(svc.dir)).toEqual([]);
  });

  it('counts MCP decisions as api in the metrics, and only successful ones', async () => {
    const { key } = await svc.newKey();
    const client = await connect(key);
    const before = (await svc.call('GET', '/v1/metrics')).body;
    const ok = await client.callTool({ name: 'weigh_decision', arguments: { ...CHOICE } });
    svc.fake.respond(() => ({ status: 500 }));
    const failed = await client.callTool({ name: 'weigh_decision', arguments: { ...CHOICE } });
    expect(failed.isError).toBe(true);
    const after = (await svc.call('GET', '/v1/metrics')).body;
    expect(after.api.samples).toBe(before.api.samples + 1);
    expect(after.web.samples).toBe(before.web.samples);
    expect(after.overall.samples).toBe(before.overall.samples + 1);
    const timing = DecisionResponse.parse(ok.structuredContent).timing;
    expect(timing.samplesToday).toBe(after.api.samples);
  });

  it('logs /mcp requests like /v1 ones: the key hint, never the key', async () => {
    const created = await svc.newKey();
    const client = await connect(created.key);
    const from = svc.logs.length;
    await client.callTool({ name: 'get_usage', arguments: {} });
    const lines = svc.logs.slice(from).map((line) => JSON.parse(line));
    expect(lines).toContainEqual(expect.objectContaining({ method: 'POST', path: '/mcp', status: 200, key: created.keyHint }));
    expect(svc.logs.join('\n')).not.toContain(created.key);
  });
});
