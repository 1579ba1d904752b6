import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithOpenAI, type Running } from '../support/service.js';
import { browserOf } from './helpers.js';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

describe('the pages', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());

  it('GET / : the strict CSP and the other page headers; verification labelled off; the snippets name this server', async () => {
    const res = await svc.call('GET', '/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=UTF-8');
    expect(res.headers).toMatchObject({
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'cache-control': 'no-store',
    });
    expect(res.text.startsWith('<!doctype html>')).toBe(true);
    expect(res.text).toContain('DECIDE_VERIFY=none');
    expect(res.text).toContain(`curl -s ${svc.url}/v1/decisions`);
    expect(res.text).toContain(`&quot;url&quot;: &quot;${svc.url}/mcp&quot;`);
    // Nothing inline: every script is a file of ours.
    const scripts = [...res.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(5); // wording.js (written from the contract), answer.js, app.js, home.js, snippets.js
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/ src="\/assets\/[a-z]+\.[0-9a-f]{12}\.js"/);
      expect(body).toBe('');
    }
    expect(res.text).not.toMatch(/ on[a-z]+=|style="/);
  });

  it('the assets: hashed names, cached for a year, the right types; HEAD works; other names are 404', async () => {
    const page = await svc.call('GET', '/');
    const urls = [...page.text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(new Set(urls.map((u) => u.split('.').pop()))).toEqual(new Set(['js', 'css', 'svg']));
    for (const url of new Set(urls)) {
      const res = await svc.call('GET', url);
      expect(res.status, url).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type']).toMatch(/^(text\/javascript|text\/css|image\/svg\+xml)/);
      expect(res.text.length).toBeGreaterThan(100);
    }
    expect((await svc.call('HEAD', '/')).status).toBe(200);
    expect((await svc.call('GET', '/assets/app.000000000000.js')).status).toBe(404);
    expect((await svc.call('POST', '/')).status).toBe(405);
    expect((await svc.call('DELETE', '/pass')).headers.allow).toBe('GET');
  });

  it('GET /pass: without a pass, a way home; with one, the keys by hint and never a key', async () => {
    const empty = await svc.call('GET', '/pass');
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('No pass in this browser');

    const browser = browserOf(svc);
    const key = await browser.newKey();
    const home = await svc.call('GET', '/', { headers: { cookie: browser.cookie! } });
    expect(home.text).toContain('This browser holds a pass with <strong>0</strong> credits');
    const page = await svc.call('GET', '/pass', { headers: { cookie: browser.cookie! } });
    expect(page.text).toContain(`<code>${key.keyHint}</code>`);
    expect(page.text).toContain(`data-key-id="${key.id}"`);
    expect(page.text).toContain('<option value="' + key.id + '">');
    expect(page.text).not.toContain(key.key);
    expect(page.text).toContain('decide pass fund --pass pass_');
  });
});

describe('served over https (DECIDE_PUBLIC_URL, or X-Forwarded-Proto from a trusted proxy)', () => {
  let svc: Running;
  let proxied: Running;
  const PUBLIC = 'https://decide.example.com';
  beforeAll(async () => {
    svc = await startWithOpenAI({ publicUrl: PUBLIC });
    proxied = await startWithOpenAI({ trustProxy: true });
  });
  afterAll(async () => {
    await svc.close();
    await proxied.close();
  });

  it('the cookie is __Host-decide_pass, Secure; the Origin must be the public one', async () => {
    const browser = browserOf(svc, PUBLIC);
    const res = await browser.verify();
    expect(res.status).toBe(201);
    expect(res.headers['set-cookie']).toMatch(/^__Host-decide_pass=v1\./);
    expect(res.headers['set-cookie']).toContain('; Secure');
    expect((await browser.call('POST', '/v1/keys')).status).toBe(201);
    const local = await svc.call('POST', '/v1/keys', { headers: { origin: svc.url, cookie: browser.cookie! } });
    expect(local.status).toBe(403);
    const home = await svc.call('GET', '/');
    expect(home.text).toContain(`curl -s ${PUBLIC}/v1/decisions`);
  });

  it('behind a trusted proxy, X-Forwarded-Proto and X-Forwarded-Host make the origin', async () => {
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.org' };
    const res = await proxied.call('POST', '/v1/pass', { headers: { ...headers, origin: 'https://api.example.org' } });
    expect(res.status).toBe(201);
    expect(res.headers['set-cookie']).toMatch(/^__Host-decide_pass=.*; Secure/);
    const cookie = res.headers['set-cookie'].split(';')[0];
    const wrong = await proxied.call('POST', '/v1/keys', { headers: { ...headers, cookie, origin: proxied.url } });
    expect(wrong.status).toBe(403);
    const right = await proxied.call('POST', '/v1/keys', { headers: { ...headers, cookie, origin: 'https://api.example.org' } });
    expect(right.status).toBe(201);
  });
});

describe('GET /openapi.json describes the browser routes', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());

  it('from the same schemas, with the pass cookie as their security', async () => {
    const doc = (await svc.call('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/pass']).sort()).toEqual(['get', 'post']);
    expect(doc.paths['/v1/keys'].post.responses['201'].content['application/json'].schema.$ref).toBe('#/components/schemas/KeyCreated');
    expect(Object.keys(doc.paths['/v1/keys'].post.responses).sort()).toEqual(['201', '401', '403', '429']);
    expect(doc.paths['/v1/pass'].post.responses['429'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    expect(doc.paths['/v1/keys/{id}'].delete.parameters[0]).toMatchObject({ in: 'path', name: 'id', required: true });
    expect(doc.paths['/v1/web/decisions'].post.security).toEqual([{ passCookie: [] }]);
    expect(doc.components.securitySchemes.passCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'decide_pass' });
    const schemas = doc.components.schemas;
    expect(schemas.PassRecord.required).toEqual(['passId', 'passCredits', 'fundedEver', 'keys', 'freeLimit', 'day']);
    const choice = schemas.WebDecisionRequest.oneOf.find((s: any) => s.properties.mode.const === 'choice');
    expect(choice.required).toContain('keyId');
    expect(choice.additionalProperties).toBe(false);
    expect(schemas.Error.properties.issues.type).toBe('array');
  });
});
