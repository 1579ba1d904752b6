import { Agent, type Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DecideClient, DecideError, type RetryEvent } from '../../src/client/index.js';
import { closedPort } from '../support/ports.js';
import { NOUL } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { startLossyProxy, startStub, type Scripted, type Stub } from './stub-api.js';

const KEY = 'dcd_api_not-checked-by-the-stub';

async function failure(promise: Promise<unknown>): Promise<DecideError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DecideError);
  return error as DecideError;
}

/** A valid decision answer, as the stub gives it. */
const DECIDED = {
  mode: 'noul',
  question: NOUL.question,
  result: { yesProbability: 0.7 },
  signal: 'yes',
  contextSufficiency: 0.9,
  model: 'stub',
  inputTokens: null,
  evaluatedAt: '2026-11-22T10:00:00.000Z',
  access: { type: 'free', freeRemaining: 19 },
  stress: null,
  timing: { processingMs: 5, averageMsToday: 5, samplesToday: 1 },
};
const busy = (retryAfter?: string): Scripted => ({
  status: 429,
  body: { error: 'the decision engine is busy', code: 'engine_busy' },
  headers: retryAfter ? { 'retry-after': retryAfter } : undefined,
});
const unavailable = (retryAfter?: string): Scripted => ({
  status: 503,
  body: { error: 'the decision engine is unavailable', code: 'engine_unavailable' },
  headers: retryAfter ? { 'retry-after': retryAfter } : undefined,
});

describe('retries against a scripted stub', () => {
  let stub: Stub;
  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(() => stub.close());
  afterEach(() => {
    stub.requests.length = 0;
    stub.script();
  });
  const client = (events: RetryEvent[] = []) =>
    new DecideClient({ url: stub.url, apiKey: KEY, retry: { baseDelayMs: 50 }, onRetry: (e) => events.push(e) });
  /**
   * A client whose first planned wait starts a timer of `after(delayMs)`, noting how many
   * requests the stub had when it fired. Both timers are this process's, so their order
   * holds however slow the machine: an ordering, not a measured duration.
   */
  const watchedClient = (after: (delayMs: number) => number) => {
    const events: RetryEvent[] = [];
    const timers: NodeJS.Timeout[] = [];
    const watched = {
      events,
      requestsWhenTimerFired: undefined as number | undefined,
      client: new DecideClient({
        url: stub.url,
        apiKey: KEY,
        retry: { baseDelayMs: 50 },
        onRetry: (e) => {
          events.push(e);
          if (e.attempt === 1) timers.push(setTimeout(() => (watched.requestsWhenTimerFired = stub.requests.length), after(e.delayMs)));
        },
      }),
      stop: () => timers.forEach(clearTimeout),
    };
    return watched;
  };

  it('503, then 429 engine_busy, then 200: three attempts with one Idempotency-Key, honouring Retry-After', async () => {
    stub.script(unavailable('1'), busy(), { status: 200, body: DECIDED });
    // When the client says it will wait 1 s, a timer a little shorter starts: the retry
    // must not have reached the stub when it fires.
    const watched = watchedClient((delayMs) => delayMs - 100);
    const answer = await watched.client.raw.decide(NOUL);
    watched.stop();
    const { events } = watched;
    const attemptsWhenTimerFired = watched.requestsWhenTimerFired;
    expect(answer.attempts).toBe(3);
    expect(answer.data.signal).toBe('yes');
    expect(stub.requests).toHaveLength(3);
    const keys = stub.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(stub.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    // Retry-After: 1 was waited for: the second attempt came after the 0.9 s timer.
    expect(attemptsWhenTimerFired, 'attempts at the stub when 0.9 s of the 1 s wait had passed').toBe(1);
    expect(events.map((e) => [e.attempt, e.delayMs, e.error.code])).toEqual([
      [1, 1000, 'engine_unavailable'],
      [2, 100, 'engine_busy'],
    ]);
  });

  it('each decide() call has its own Idempotency-Key', async () => {
    stub.script({ status: 200, body: DECIDED }, { status: 200, body: DECIDED });
    await client().decide(NOUL);
    await client().decide(NOUL);
    const [a, b] = stub.requests.map((r) => r.headers['idempotency-key']);
    expect(a).not.toBe(b);
  });

  it('at most 2 retries: a lasting 503 is returned after 3 attempts', async () => {
    stub.script(unavailable(), unavailable(), unavailable(), { status: 200, body: DECIDED });
    const error = await failure(client().decide(NOUL));
    expect(error).toMatchObject({ status: 503, code: 'engine_unavailable', message: 'the decision engine is unavailable' });
    expect(stub.requests).toHaveLength(3);
  });

  it('429 rate_limited is retried; usage() is retried too', async () => {
    stub.script(
      { status: 429, body: { error: 'site limit', code: 'rate_limited' } },
      {
        status: 200,
        body: { day: '2026-11-22', freeLimit: 20, freeUsed: 1, freeRemaining: 19, passCredits: 0, resetsAt: '2026-11-23T00:00:00.000Z' },
      },
    );
    expect((await client().usage()).freeRemaining).toBe(19);
    expect(stub.requests).toHaveLength(2);
  });

  it('a Retry-After beyond the cap is not waited for: the error comes back at once with retryAfter', async () => {
    stub.script(busy('30'), { status: 200, body: DECIDED });
    const events: RetryEvent[] = [];
    const error = await failure(client(events).decide(NOUL));
    expect(error).toMatchObject({ status: 429, code: 'engine_busy', retryAfter: 30 });
    // At once: no wait was even planned, and the stub was asked once.
    expect(events).toEqual([]);
    expect(stub.requests).toHaveLength(1);
  });

  it.each(['1e3', '0x10', '-1', '1.5', ' 5x'])(
    'Retry-After: %j is no Retry-After: the client waits its own backoff, neither 1000 s nor none',
    async (value) => {
      stub.script(busy(value), busy(value), busy(value));
      // When the first wait is planned, a timer of half the backoff starts: the retry must
      // not have reached the stub when it fires.
      const watched = watchedClient(() => 25);
      const error = await failure(watched.client.decide(NOUL));
      watched.stop();
      const { events } = watched;
      const requestsAtHalfTheBackoff = watched.requestsWhenTimerFired;
      expect(error).toMatchObject({ status: 429, code: 'engine_busy', retryAfter: undefined });
      expect(stub.requests).toHaveLength(3);
      expect(events.map((e) => [e.attempt, e.delayMs])).toEqual([
        [1, 50],
        [2, 100],
      ]);
      expect(requestsAtHalfTheBackoff, 'requests at the stub when half the first backoff had passed').toBe(1);
    },
  );

  it.each([
    [
      '429 free_limit_reached',
      { status: 429, body: { error: 'free allowance used', code: 'free_limit_reached' }, headers: { 'retry-after': '1' } },
    ],
    ['402 pass_required', { status: 402, body: { error: 'stress needs a funded pass', code: 'pass_required' } }],
    ['400 invalid_request', { status: 400, body: { error: 'context: must not be empty', code: 'invalid_request' } }],
    ['502 engine_bad_response', { status: 502, body: { error: 'unusable', code: 'engine_bad_response' } }],
    ['504 engine_timeout', { status: 504, body: { error: 'too slow', code: 'engine_timeout' } }],
    ['401 unauthorized', { status: 401, body: { error: 'unknown key', code: 'unauthorized' } }],
  ])('%s is not retried', async (_, answer) => {
    stub.script(answer, { status: 200, body: DECIDED });
    const error = await failure(client().decide(NOUL));
    expect(error.status).toBe(answer.status);
    expect(error.code).toBe(answer.body.code);
    expect(error.message).toBe(answer.body.error);
    expect(stub.requests).toHaveLength(1);
  });

  it('revoke() is never retried (had the first attempt worked, a retry would get 401)', async () => {
    stub.script(unavailable(), { status: 200, body: { revoked: true, keyHint: 'dcd_api_…abcd', revokedAt: '2026-11-22T10:00:00.000Z' } });
    expect(await failure(client().revoke())).toMatchObject({ status: 503 });
    expect(stub.requests).toHaveLength(1);
  });

  it('answers outside the contract are bad_response, keeping the status', async () => {
    stub.script({ status: 502, text: '<html>Bad Gateway</html>' });
    expect(await failure(client().decide(NOUL))).toMatchObject({ status: 502, code: 'bad_response' });
    stub.script({ status: 200, body: { ...DECIDED, signal: 'maybe' } });
    const outside = await failure(client().decide(NOUL));
    expect(outside).toMatchObject({ status: 200, code: 'bad_response' });
    expect(outside.message).toContain('signal');
    stub.script({ status: 200, text: 'hello' });
    expect(await failure(client().usage())).toMatchObject({ status: 200, code: 'bad_response' });
    stub.script({ status: 418, body: { error: 'teapot', code: 'i_am_a_teapot' } });
    expect(await failure(client().usage())).toMatchObject({ status: 418, code: 'bad_response' });
  });

  it('a dropped connection is unreachable (status 0) and not retried', async () => {
    stub.script({ status: 0, drop: true }, { status: 200, body: DECIDED });
    const error = await failure(client().decide(NOUL));
    expect(error).toMatchObject({ status: 0, code: 'unreachable' });
    expect(stub.requests).toHaveLength(1);
  });

  it('no server at all: unreachable, status 0, the message names the URL and the socket error', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const error = await failure(new DecideClient({ url, apiKey: KEY }).decide(NOUL));
    expect(error).toMatchObject({ status: 0, code: 'unreachable', fromService: false });
    expect(error.message).toContain(`${url}/v1/decisions`);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('a port fetch refuses to use (1, 6000, …): unreachable, and the message says why', async () => {
    const error = await failure(new DecideClient({ url: 'http://127.0.0.1:6000', apiKey: KEY }).decide(NOUL));
    expect(error).toMatchObject({ status: 0, code: 'unreachable' });
    expect(error.message).toContain('fetch refuses this port');
  });

  it('a redirect is not followed: the 3xx is an answer outside the API, bad_response', async () => {
    stub.script({ status: 307, text: 'elsewhere', headers: { location: '/v2/decisions' } });
    expect(await failure(client().decide(NOUL))).toMatchObject({ status: 307, code: 'bad_response' });
    expect(stub.requests).toHaveLength(1);
  });

  it("a caller's Idempotency-Key that is no header value is the caller's TypeError, before anything is sent", async () => {
    await expect(client().decide(NOUL, { idempotencyKey: 'run\n77' })).rejects.toThrow(TypeError);
    expect(stub.requests).toHaveLength(0);
  });

  it("a caller's undici dispatcher carries the calls (through the undici package's fetch)", async () => {
    const seen: string[] = [];
    class Watching extends Agent {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        seen.push(`${options.method} ${options.path}`);
        return super.dispatch(options, handler);
      }
    }
    const dispatcher = new Watching();
    try {
      stub.script({ status: 200, body: DECIDED });
      const answer = await new DecideClient({ url: stub.url, apiKey: KEY, dispatcher }).decide(NOUL);
      expect(answer.signal).toBe('yes');
      expect(seen).toEqual(['POST /v1/decisions']);
      expect(stub.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    } finally {
      await dispatcher.close();
    }
  });

  it('timeoutMs bounds one attempt: code timeout, status 0', async () => {
    stub.script({ status: 200, hang: true });
    const events: RetryEvent[] = [];
    const slow = new DecideClient({ url: stub.url, apiKey: KEY, timeoutMs: 300, onRetry: (e) => events.push(e) });
    const error = await failure(slow.decide(NOUL));
    expect(error).toMatchObject({ status: 0, code: 'timeout' });
    expect(error.message).toContain('300 ms');
    // One attempt and no retry (on a loaded machine the 300 ms may run out before the
    // stub has even read the request).
    expect(events).toEqual([]);
    expect(stub.requests.length).toBeLessThanOrEqual(1);
  });

  it("the caller's AbortSignal ends the call (and its retry wait) with the signal's reason", async () => {
    stub.script(unavailable('5'));
    const controller = new AbortController();
    const call = client().decide(NOUL, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 200);
    await expect(call).rejects.toThrow('caller gave up');
  });
});

describe('a lost answer is retried without a second charge', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startWithOpenAI();
  });
  afterAll(() => svc.close());

  it('the proxy loses the first answer (503): the retry is replayed, one decision is charged, not two', async () => {
    const proxy = await startLossyProxy(svc.url);
    try {
      const { key } = await svc.newKey();
      const client = new DecideClient({ url: proxy.url, apiKey: key });
      proxy.loseNext(1);
      const engineCalls = svc.fake.requests.length;
      const answer = await client.raw.decide(NOUL);
      expect(answer.status).toBe(200);
      expect(answer.attempts).toBe(2);
      expect(answer.replayed).toBe(true);
      const posts = proxy.requests.filter((r) => r.method === 'POST');
      expect(posts).toHaveLength(2);
      expect(posts[0].headers['idempotency-key']).toBe(posts[1].headers['idempotency-key']);
      // The engine ran once (main question + sufficiency probe), the ledger charged once.
      expect(svc.fake.requests.length - engineCalls).toBe(2);
      expect((await client.usage()).freeUsed).toBe(1);

      // The same loss, for a caller that sends no Idempotency-Key, costs two.
      proxy.loseNext(1);
      const naive = async () => {
        const { request } = await import('undici');
        return request(proxy.url + '/v1/decisions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(NOUL),
        }).then((r) => r.body.text().then(() => r.statusCode));
      };
      expect(await naive()).toBe(503);
      expect(await naive()).toBe(200);
      expect((await client.usage()).freeUsed).toBe(3);
    } finally {
      await proxy.close();
    }
  });

  it('the engine fails once (503 from the service): the retry decides, and only it is charged', async () => {
    const { key } = await svc.newKey();
    const client = new DecideClient({ url: svc.url, apiKey: key });
    let failures = 1;
    svc.fake.respond(() => (failures-- > 0 ? { status: 503, headers: { 'retry-after': '1' } } : { labels: { Yes: 0.8, No: 0.2 } }));
    try {
      const answer = await client.raw.decide(NOUL);
      expect(answer.attempts).toBe(2);
      expect(answer.replayed).toBe(false);
      expect((await client.usage()).freeUsed).toBe(1);
    } finally {
      svc.fake.respond();
    }
  });
});
