import { afterEach, describe, expect, it } from 'vitest';
import { startWithSystemOne, type Running } from '../support/service.js';

/**
 * An option named "__proto__" is a name like any other on /v1/decisions: the systemone
 * engine's wire and its reading of the answer keep it as data (it answered 502 when a
 * plain object turned it into a prototype).
 */
describe('an option named __proto__ through the systemone engine', () => {
  let svc: Running | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it('is asked and answered as data, charged once', async () => {
    svc = await startWithSystemOne();
    const { key } = await svc.newKey();
    const res = await svc.call('POST', '/v1/decisions', {
      key,
      json: {
        mode: 'choice',
        question: 'Which name should the field get?',
        context: 'A config loader copies members into a plain object.',
        options: ['__proto__', 'prototype', 'constructor'],
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(JSON.stringify(res.body.result)).toContain('__proto__');
    expect((await svc.call('GET', '/v1/usage', { key })).body).toMatchObject({ freeUsed: 1 });
  });
});
