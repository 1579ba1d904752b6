import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHOICE } from '../support/requests.js';
import { manualClock, startWithOpenAI, type Running } from '../support/service.js';
import { browserOf, ledgerRows } from './helpers.js';

/**
 * The pass page as a dashboard, as the server renders it: a pass without a live key
 * says so and offers a key (made past the network's count for a funded pass, once a
 * day), the keys' names and times in words, and the usage chart of 30 days.
 */
describe('GET /pass as a dashboard', () => {
  let svc: Running;
  const time = manualClock('2026-11-20T09:00:00.000Z');
  beforeAll(async () => {
    svc = await startWithOpenAI({ clock: time.clock, trustProxy: true });
  });
  afterAll(() => svc.close());

  let ip = 0;
  /** A browser seen from an IP of its own. */
  function browser() {
    const b = browserOf(svc);
    const forwarded = { 'x-forwarded-for': `198.51.100.${++ip}` };
    const call = b.call;
    b.call = (method, path, options = {}) => call(method, path, { ...options, headers: { ...forwarded, ...options.headers } });
    return b;
  }
  const page = async (b: ReturnType<typeof browser>) => (await b.call('GET', '/pass')).text;
  const counted = () => ledgerRows<{ n: number }>(svc, 'SELECT coalesce(sum(created), 0) AS n FROM key_creations')[0].n;
  /** The page's text outside its tags' attributes: what a reader sees. */
  const shown = (html: string) => html.replace(/<[^>]*>/g, ' ');

  it('a funded pass whose keys are all revoked says so, and gets one replacement a day past the network’s count', async () => {
    time.set('2026-11-20T09:00:00.000Z');
    const b = browser();
    await b.newKey();
    const { passId } = (await b.call('GET', '/v1/pass')).body;
    await svc.store.passes.fund(passId, 12, time.clock(), 'dashboard test');
    time.set('2026-11-22T09:00:00.000Z');
    await b.newKey();
    await b.newKey(); // the network's two keys of the day
    for (const k of (await b.call('GET', '/v1/pass')).body.keys.filter((k: any) => !k.revokedAt)) {
      expect((await b.call('DELETE', `/v1/keys/${k.id}`)).status).toBe(200);
    }
    // Made today, so no replacement today: the count decides, and it is used up.
    let html = await page(b);
    expect(html).toContain('<strong>This pass has no live key</strong>: every key of it is revoked');
    expect(html).toContain('its 12 credits wait unused');
    expect(html).toMatch(/<button id="create-key" type="button" data-has-pass="1" data-needs-token="0" disabled="">/);
    expect(html).toContain('Decide needs a live key of this pass to pay with: create one above.');
    expect((await b.call('POST', '/v1/keys')).status).toBe(429);

    time.set('2026-11-23T08:00:00.000Z');
    const other = browser();
    await other.newKey(); // the count of the new day...
    await other.newKey(); // ...used up by another browser of the same network
    const sameNetwork = { 'x-forwarded-for': `198.51.100.${ip}` };
    const before = counted();
    const replacement = await b.call('POST', '/v1/keys', { headers: sameNetwork });
    expect(replacement.status).toBe(201);
    expect(counted()).toBe(before);
    html = await page(b);
    expect(html).not.toContain('no live key');
    expect(html).toContain(`<option value="${replacement.body.id}">`);
    expect((await b.call('POST', '/v1/keys', { headers: sameNetwork })).status).toBe(429); // one live key is made this way
  });

  it('a pass never funded whose keys are revoked says so too; the network’s count decides its next key', async () => {
    time.set('2026-11-23T12:00:00.000Z');
    const b = browser();
    const key = await b.newKey();
    await b.call('DELETE', `/v1/keys/${key.id}`);
    const html = await page(b);
    expect(html).toContain('every key of it is revoked, so nothing can pay for a decision.');
    expect((await b.call('POST', '/v1/keys')).status).toBe(201); // this network has its second key of the day left
  });

  it('keys: their names, and when made, last used and revoked in words, the exact UTC time in the title; no ISO time shown', async () => {
    time.set('2026-11-23T12:00:00.000Z');
    const b = browser();
    const used = await b.newKey();
    const { passId } = (await b.call('GET', '/v1/pass')).body;
    const named = await svc.store.keys.create(new Date('2026-11-19T07:30:00.000Z'), passId, 'ci runner <staging>');
    expect((await b.call('POST', '/v1/web/decisions', { json: { ...CHOICE, keyId: used.id } })).status).toBe(200);

    let html = await page(b);
    const row = (id: string) =>
      html.slice(html.indexOf(`<tr data-key-id="${id}"`), html.indexOf('</tr>', html.indexOf(`<tr data-key-id="${id}"`)));
    expect(row(used.id)).toContain(
      '<td class="last-used" data-label="Last used"><time datetime="2026-11-23T12:00:00.000Z" title="2026-11-23 12:00 UTC">today</time>',
    );
    expect(row(named.keyId)).toContain('<span class="key-name breakable">ci runner &lt;staging&gt;</span><br/><code>');
    expect(row(named.keyId)).toContain('<time datetime="2026-11-19T07:30:00.000Z" title="2026-11-19 07:30 UTC">4 days ago</time>');
    expect(row(named.keyId)).toMatch(/data-label="Last used">never</);

    time.set('2026-11-26T09:00:00.000Z');
    await b.call('DELETE', `/v1/keys/${named.keyId}`);
    html = await page(b);
    expect(shown(row(used.id))).toMatch(/3 days ago/);
    expect(row(named.keyId)).toContain('revoked <time datetime="2026-11-26T09:00:00.000Z" title="2026-11-26 09:00 UTC">today</time>');
    expect(shown(html)).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
  });

  it('PATCH /v1/keys/{id} names an active key of the pass (the page shows it), clears it with null; refusals name the field', async () => {
    time.set('2026-11-24T10:00:00.000Z');
    const b = browser();
    const key = await b.newKey();
    const name = (json: unknown, id = key.id) => b.call('PATCH', `/v1/keys/${id}`, { json });
    const named = await name({ name: 'build server <b>' });
    expect(named.status).toBe(200);
    expect(named.body).toEqual({ id: key.id, name: 'build server <b>' });
    expect(named.headers['cache-control']).toBe('no-store');
    expect(await page(b)).toContain('<span class="key-name breakable">build server &lt;b&gt;</span>');

    for (const bad of <Record<string, unknown>[]>[
      { name: ' padded' },
      { name: 'x'.repeat(101) },
      { name: 'line\nbreak' },
      { name: '\u202egnp.exe' },
      { name: '\u200b\u200b' },
      { name: '' },
      { name: 3 },
      {},
      { name: 'a', extra: 1 },
    ]) {
      const refused = await name(bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body.code).toBe('invalid_request');
      expect(
        refused.body.issues.map((i: { field: string }) => i.field),
        JSON.stringify(bad),
      ).toEqual(['extra' in bad ? 'extra' : 'name']);
    }
    expect((await name({ name: 'a'.repeat(100) })).status).toBe(200);
    expect((await name({ name: null })).body).toEqual({ id: key.id, name: null });
    expect(await page(b)).not.toContain('class="key-name');

    const stranger = browser();
    await stranger.newKey();
    expect((await stranger.call('PATCH', `/v1/keys/${key.id}`, { json: { name: 'mine' } })).status).toBe(404);
    expect(
      (
        await svc.call('PATCH', `/v1/keys/${key.id}`, {
          json: { name: 'x' },
          headers: { origin: 'http://evil.example', cookie: b.cookie! },
        })
      ).status,
    ).toBe(403);
    await b.call('DELETE', `/v1/keys/${key.id}`);
    expect((await name({ name: 'after' })).status).toBe(404);
  });

  it('usage: an SVG bar chart of 30 UTC days with a title and description, and the figures by day and key', async () => {
    time.set('2026-11-24T10:00:00.000Z');
    const b = browser();
    const key = await b.newKey();
    const { passId } = (await b.call('GET', '/v1/pass')).body;
    await svc.store.passes.fund(passId, 10, time.clock(), 'dashboard test');
    expect((await b.call('POST', '/v1/web/decisions', { json: { ...CHOICE, keyId: key.id, depth: 'stress' } })).status).toBe(200);
    time.set('2026-11-26T10:00:00.000Z');
    for (let i = 0; i < 2; i++)
      expect((await b.call('POST', '/v1/web/decisions', { json: { ...CHOICE, keyId: key.id } })).status).toBe(200);

    const html = await page(b);
    const svg = html.slice(html.indexOf('<svg'), html.indexOf('</svg>'));
    expect(svg).toContain('role="img" aria-labelledby="usage-chart-title usage-chart-desc"');
    expect(svg).toContain('<title id="usage-chart-title">Decisions per UTC day, Wed 28 Oct to Thu 26 Nov</title>');
    expect(svg).toContain(
      '<desc id="usage-chart-desc">2 free and 1 paid with 5 credits in all; the busiest day, Thu 26 Nov, had 2.</desc>',
    );
    expect(svg.match(/<g data-day=/g)).toHaveLength(30);
    expect(svg.match(/<rect class="free"/g)).toHaveLength(1);
    expect(svg.match(/<rect class="paid"/g)).toHaveLength(1);
    expect(svg).toContain('<title>Tue 24 Nov: 0 free, 1 paid (5 credits)</title>');
    expect(svg).not.toMatch(/ style=/); // its colours are the style sheet's, which the CSP allows
    expect(html).toContain('The tallest bar is 2 decisions.');
    const table = shown(
      html.slice(html.indexOf('<table id="usage-table"'), html.indexOf('</table>', html.indexOf('<table id="usage-table"'))),
    );
    expect(table.replace(/\s+/g, ' ').trim()).toBe(
      `Day Key Free Paid Credits Thu 26 Nov ${key.keyHint} 2 0 0 Tue 24 Nov ${key.keyHint} 0 1 5`,
    );
  });
});
