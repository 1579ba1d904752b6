import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { Fake } from '../fakes/http-fake.js';
import { startOpenAIFake } from '../fakes/openai-fake.js';
import { startProxyFake, type ProxyFake } from '../fakes/proxy-fake.js';
import { startSystemOneFake } from '../fakes/systemone-fake.js';
import { closedPort, failureOf, fund, noDeadline, STATE, engineFromEnv } from './helpers.js';

/**
 * Every remote engine as a user behind a corporate proxy configures it: the same
 * variables curl reads (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, either case) route its
 * calls, and its start-up probe (the models list) says plainly what is wrong.
 */

const KINDS = [
  {
    kind: 'systemone',
    start: startSystemOneFake,
    env: (url: string) => ({ DECIDE_SYSTEMONE_URL: url, DECIDE_MODEL: 'm' }),
    models: '/v1/models',
  },
  {
    kind: 'openai',
    start: startOpenAIFake,
    env: (url: string) => ({ DECIDE_ENGINE: 'openai', OPENAI_BASE_URL: url, DECIDE_MODEL: 'm' }),
    models: '/v1/models',
  },
  {
    kind: 'anthropic',
    start: startAnthropicFake,
    env: (url: string) => ({
      DECIDE_ENGINE: 'anthropic',
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: 'sk-ant-outbound-test-key',
      DECIDE_MODEL: 'm',
    }),
    models: '/v1/models',
  },
] as const;

describe.each(KINDS)('the $kind engine, behind a proxy', ({ start, env, models }) => {
  let fake: Fake<any>;
  let proxy: ProxyFake;
  const opened: Engine[] = [];
  const engine = (extra: Record<string, string>) => {
    const made = engineFromEnv({ ...env(fake.url), ...extra });
    if (!made) throw new Error('no engine');
    opened.push(made);
    return made;
  };
  beforeAll(async () => {
    fake = await start();
    proxy = await startProxyFake();
  });
  afterAll(async () => {
    await fake.close();
    await proxy.close();
  });
  beforeEach(() => {
    fake.reset();
    proxy.seen.length = 0;
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((e) => e.close?.()));
  });

  it('sends its calls through HTTP_PROXY (http_proxy too), and straight to NO_PROXY hosts', async () => {
    const host = new URL(fake.url).host;
    const answer = await engine({ HTTP_PROXY: proxy.url }).ask(STATE, { fund }, noDeadline());
    expect(Object.keys(answer.answers.fund.probabilities)).toEqual(['approve', 'reject']);
    expect(proxy.seen.length).toBeGreaterThan(0);
    expect(new Set(proxy.seen)).toEqual(new Set([`CONNECT ${host}`]));

    proxy.seen.length = 0;
    await engine({ http_proxy: proxy.url, no_proxy: '127.0.0.1' }).ask(STATE, { fund }, noDeadline());
    expect(proxy.seen).toEqual([]);
  });

  it('goes through the proxy it was configured with, never one the process environment names behind its back', async () => {
    const before = process.env.HTTP_PROXY;
    process.env.HTTP_PROXY = proxy.url;
    try {
      proxy.seen.length = 0;
      await engine({}).ask(STATE, { fund }, noDeadline());
      expect(proxy.seen).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = before;
    }
  });

  it('an unreachable proxy is a 503 kind of failure, not a hang', async () => {
    const port = await closedPort();
    const failure = await failureOf(engine({ HTTP_PROXY: `http://127.0.0.1:${port}` }).ask(STATE, { fund }, noDeadline()));
    expect(failure.kind).toBe('unavailable');
  });

  it('probe: its models list answers; a refused key, a wrong path and an unreachable server are said plainly, naming the URL', async () => {
    const made = engine({});
    await made.probe!(noDeadline());
    expect(fake.probes.at(-1)).toMatchObject({ method: 'GET', path: models });

    fake.modelsStatus = 401;
    expect((await failureOf(made.probe!(noDeadline()))).message).toMatch(
      new RegExp(`engine refused the key at ${fake.url.replace(/\/v1$/, '')}.*${models} \\(HTTP 401\\)$`),
    );
    fake.modelsStatus = 404;
    expect((await failureOf(made.probe!(noDeadline()))).message).toMatch(
      /engine answered HTTP 404 at http:\/\/127\.0\.0\.1:\d+\/v1\/models$/,
    );

    const port = await closedPort();
    const gone = engineFromEnv({ ...env(`http://127.0.0.1:${port}${fake.url.endsWith('/v1') ? '/v1' : ''}`) })!;
    opened.push(gone);
    const failure = await failureOf(gone.probe!(noDeadline()));
    expect(failure.kind).toBe('unavailable');
    expect(failure.message).toMatch(
      new RegExp(
        `cannot be reached at http://127\\.0\\.0\\.1:${port}/v1/models: the connection was refused \\(ECONNREFUSED 127\\.0\\.0\\.1:${port}\\)$`,
      ),
    );
    expect(failure.message).not.toContain('sk-ant');
  });
});

describe('DECIDE_SYSTEMONE_URL', () => {
  it('ending in /v1 (as OPENAI_BASE_URL does) or /v1/systemone names the same server, the root', async () => {
    const fake = await startSystemOneFake();
    try {
      for (const suffix of ['', '/', '/v1', '/v1/', '/v1/systemone']) {
        const engine = engineFromEnv({ DECIDE_SYSTEMONE_URL: fake.url + suffix, DECIDE_MODEL: 'm' })!;
        try {
          expect(engine.endpoint).toBe(fake.url);
          await engine.ask(STATE, { fund }, noDeadline());
          expect(fake.requests.at(-1)?.path).toBe('/v1/systemone');
        } finally {
          await engine.close?.();
        }
      }
    } finally {
      await fake.close();
    }
  });
});
