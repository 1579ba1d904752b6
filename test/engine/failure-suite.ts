import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ANSWER_BYTES } from '../../src/engine/answer-size.js';
import type { Engine, EngineError, Questions } from '../../src/engine/engine.js';
import { DEFAULT_RETRY_WAIT_MS } from '../../src/engine/retry.js';
import type { CommonBehaviour, Fake } from '../fakes/http-fake.js';
import { scaled } from '../support/time.js';
import { closedPort, failureOf, noDeadline } from './helpers.js';

export const SUITE_KEY = 'sk-suite-0123456789-SECRET';

export interface FailureSuite {
  start(): Promise<Fake<CommonBehaviour>>;
  create(options: { baseUrl: string; apiKey?: string; timeoutMs?: number }): Engine;
  /** Turns the fake's base URL into one with the same path on another port. */
  withPort(url: string, port: number): string;
  questions: Questions;
  /** The request headers that carry the key; default `authorization: Bearer <key>`. */
  keyHeaders?(key: string): Record<string, string>;
}

/**
 * The HTTP failure modes every engine maps the same way (5xx, 429 and its one retry,
 * other 4xx, refused and reset connections, hangs, deadlines, cut-off and non-JSON
 * bodies), run against an engine and the loopback fake of its protocol.
 */
export function describeHttpFailures(name: string, suite: FailureSuite): void {
  describe(`${name} engine: HTTP failures`, () => {
    let fake: Fake<CommonBehaviour>;
    let engines: Engine[];
    // The engine's own timeout must not fire unless a test sets one that should.
    const engine = (options: { timeoutMs?: number } = {}) => {
      const made = suite.create({ baseUrl: fake.url, apiKey: SUITE_KEY, timeoutMs: options.timeoutMs ?? scaled(5_000) });
      engines.push(made);
      return made;
    };
    const ask = (e: Engine, signal = noDeadline()) => e.ask('The facts.', suite.questions, signal);
    /** The failure, checked never to carry the key. */
    const failing = async (promise: Promise<unknown>): Promise<EngineError> => {
      const err = await failureOf(promise);
      expect(err.message).not.toContain(SUITE_KEY);
      expect(err.message).not.toContain('SECRET');
      return err;
    };
    const scripted = (...behaviours: CommonBehaviour[]) => {
      let n = 0;
      fake.respond(() => behaviours[Math.min(n++, behaviours.length - 1)]);
    };
    /**
     * Scripts `behaviours` and, when the first request arrives, starts a timer of `ms`:
     * `requestsAtTimer()` says how many requests had arrived by the time it fired. The
     * engine starts its own wait only after the first answer reached it, so
     * a wait of `ms` or more cannot end before this timer: an ordering of two timers of
     * this process, which load delays alike, not a measured duration.
     */
    const scriptedWithTimer = (ms: number, ...behaviours: CommonBehaviour[]) => {
      let n = 0;
      let timer: NodeJS.Timeout | undefined;
      let seenAtTimer: number | undefined;
      fake.respond(() => {
        if (n === 0) timer = setTimeout(() => (seenAtTimer = fake.requests.length), ms);
        return behaviours[Math.min(n++, behaviours.length - 1)];
      });
      return {
        /** How many requests had arrived when the timer fired; undefined while it has not. */
        requestsAtTimer: () => seenAtTimer,
        cancel: () => clearTimeout(timer),
      };
    };

    beforeEach(async () => {
      fake = await suite.start();
      engines = [];
    });
    afterEach(async () => {
      await Promise.all(engines.map((e) => e.close?.()));
      await fake.close();
    });

    it('maps 500 to unavailable without retrying', async () => {
      scripted({ status: 500 });
      const err = await failing(ask(engine()));
      expect(err.kind).toBe('unavailable');
      expect(err.retryAfter).toBeUndefined();
      expect(err.message).toContain('500');
      expect(fake.requests).toHaveLength(1);
    });

    it('maps 503 to unavailable with its Retry-After', async () => {
      scripted({ status: 503, headers: { 'retry-after': '7' } });
      const err = await failing(ask(engine()));
      expect(err.kind).toBe('unavailable');
      expect(err.retryAfter).toBe(7);
    });

    it('retries a 429 once after Retry-After and returns the second answer', async () => {
      scripted({ status: 429, headers: { 'retry-after': '0' } }, {});
      const reply = await ask(engine());
      expect(Object.keys(reply.answers)).toEqual(Object.keys(suite.questions));
      expect(fake.requests).toHaveLength(2);
    });

    it('waits a short default before the retry when a 429 names no delay', async () => {
      // The retry must not come before a timer shorter than the default wait.
      const timer = scriptedWithTimer(DEFAULT_RETRY_WAIT_MS - 100, { status: 429 }, {});
      await ask(engine());
      timer.cancel();
      expect(timer.requestsAtTimer(), 'requests when a timer shorter than the default wait fired').toBe(1);
      expect(fake.requests).toHaveLength(2);
    });

    it.each(['1e3', '0x10'])(
      'reads a Retry-After of %j as none: waits the short default and retries, not busy for 1000 s',
      async (value) => {
        const timer = scriptedWithTimer(DEFAULT_RETRY_WAIT_MS - 100, { status: 429, headers: { 'retry-after': value } }, {});
        const reply = await ask(engine());
        timer.cancel();
        expect(Object.keys(reply.answers)).toEqual(Object.keys(suite.questions));
        expect(timer.requestsAtTimer(), 'requests when a timer shorter than the default wait fired').toBe(1);
        expect(fake.requests).toHaveLength(2);
      },
    );

    it('reports busy with Retry-After after a second 429', async () => {
      const timer = scriptedWithTimer(900, { status: 429, headers: { 'retry-after': '1' } });
      const err = await failing(ask(engine()));
      timer.cancel();
      expect(err.kind).toBe('busy');
      expect(err.retryAfter).toBe(1);
      expect(err.message).toContain('again after one retry');
      // The retry waited out Retry-After: it came after a 0.9 s timer.
      expect(timer.requestsAtTimer(), 'requests when a 0.9 s timer fired').toBe(1);
      expect(fake.requests).toHaveLength(2);
    });

    it('reports busy at once when Retry-After is longer than the 2 s cap', async () => {
      scripted({ status: 429, headers: { 'retry-after': '30' } });
      const err = await failing(ask(engine()));
      expect(err).toMatchObject({ kind: 'busy', retryAfter: 30 });
      // Decided on the 429 itself, before any wait: waiting would have ended in the
      // engine's own timeout (kind timeout), and a retry would show at the fake.
      expect(err.message).toContain('asked to wait longer than the deadline allows');
      expect(fake.requests).toHaveLength(1);
    });

    it('reports busy at once when the Retry-After wait does not fit in the timeout', async () => {
      // Retry-After within the 2 s cap, and an engine timeout too short for that wait
      // and a retry after it (yet as long as that allows: the first answer must come
      // within it).
      scripted({ status: 429, headers: { 'retry-after': '2' } }, {});
      const err = await failing(ask(engine({ timeoutMs: 2_200 })));
      expect(err).toMatchObject({ kind: 'busy', retryAfter: 2 });
      expect(err.message).toContain('asked to wait longer than the deadline allows');
      expect(fake.requests).toHaveLength(1);
    });

    it('gives up with timeout when the deadline passes during the retry wait', async () => {
      // Once the question has been asked: the decision's deadline 300 ms later, inside
      // the 1 s wait the 429 asks for, and a 1 s timer that cannot fire before that wait
      // is over. The call must end at the deadline, before the timer.
      const caller = new AbortController();
      const timers: NodeJS.Timeout[] = [];
      let waitWasOver = false;
      let n = 0;
      fake.respond(() => {
        if (n++ > 0) return {};
        timers.push(
          setTimeout(() => caller.abort(), 300),
          setTimeout(() => (waitWasOver = true), 1_000),
        );
        return { status: 429, headers: { 'retry-after': '1' } };
      });
      const err = await failing(ask(engine(), caller.signal));
      const endedAfterTheWait = waitWasOver;
      for (const timer of timers) clearTimeout(timer);
      expect(err.kind).toBe('timeout');
      expect(err.message).toContain("the decision's deadline passed");
      expect(endedAfterTheWait, 'the call ended only after the whole Retry-After wait').toBe(false);
      expect(fake.requests).toHaveLength(1);
    });

    it('maps other 4xx to bad_response with the status and never echoes the key', async () => {
      const echo = JSON.stringify({ error: { message: `Incorrect API key provided: ${SUITE_KEY}` } });
      for (const status of [400, 401, 404, 422]) {
        scripted({ status, body: echo });
        const err = await failing(ask(engine()));
        expect(err.kind).toBe('bad_response');
        expect(err.message).toContain(String(status));
      }
    });

    it('sends the key where the provider expects it', async () => {
      await ask(engine());
      expect(fake.requests[0].headers).toMatchObject(suite.keyHeaders?.(SUITE_KEY) ?? { authorization: `Bearer ${SUITE_KEY}` });
    });

    it('maps a refused connection to unavailable', async () => {
      const refused = suite.create({ baseUrl: suite.withPort(fake.url, await closedPort()), apiKey: SUITE_KEY });
      engines.push(refused);
      const err = await failing(ask(refused));
      expect(err.kind).toBe('unavailable');
      expect(err.message).toContain('ECONNREFUSED');
    });

    it('maps a connection dropped before the answer to unavailable', async () => {
      scripted({ hang: true });
      const pending = ask(engine());
      while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
      await fake.close();
      const err = await failing(pending);
      expect(err.kind).toBe('unavailable');
    });

    it('times out at the decision deadline when the provider hangs', async () => {
      // The decision's deadline passes once the question is asked and left hanging.
      const caller = new AbortController();
      fake.respond(() => {
        setImmediate(() => caller.abort());
        return { hang: true };
      });
      const err = await failing(ask(engine(), caller.signal));
      expect(err.kind).toBe('timeout');
      // The caller's deadline, not the engine's own (a scaled 5 s here).
      expect(err.message).toContain("the decision's deadline passed");
      expect(fake.requests).toHaveLength(1);
    });

    it("times out at the engine's own timeoutMs", async () => {
      scripted({ hang: true });
      const err = await failing(ask(engine({ timeoutMs: 300 })));
      expect(err.kind).toBe('timeout');
      expect(err.message).toContain('did not answer within 300 ms');
    });

    it('times out at once on an already aborted signal', async () => {
      const err = await failing(ask(engine(), AbortSignal.abort()));
      expect(err.kind).toBe('timeout');
    });

    it('answers a slow provider that is still within the deadline', async () => {
      scripted({ delayMs: 200 });
      const reply = await ask(engine(), AbortSignal.timeout(scaled(2_000)));
      expect(Object.keys(reply.answers)).toEqual(Object.keys(suite.questions));
    });

    it('close() abandons in-flight calls at once and can be called twice', async () => {
      scripted({ hang: true });
      const closing = engine();
      const pending = ask(closing);
      while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
      await closing.close?.();
      // Abandoned by close(), not left to its timeout: that would be kind timeout.
      const err = await failing(pending);
      expect(err.kind).toBe('unavailable');
      await closing.close?.();
    });

    it('maps a body cut off mid-JSON to bad_response', async () => {
      scripted({ truncated: true });
      const err = await failing(ask(engine()));
      expect(err.kind).toBe('bad_response');
      expect(err.message).toContain('cut off');
    });

    it('maps a 200 that is not JSON to bad_response', async () => {
      scripted({ garbage: true });
      const err = await failing(ask(engine()));
      expect(err.kind).toBe('bad_response');
    });

    /** The oversized answer failed the ask with a message naming the limit, and its connection was cut mid-send. */
    const expectCutOff = async (err: EngineError, kind: EngineError['kind'] = 'bad_response') => {
      expect(err.kind).toBe(kind);
      if (kind === 'bad_response') expect(err.message).toContain('larger than 1 MiB');
      expect(fake.streams).toHaveLength(1);
      const outcome = await fake.streams[0];
      expect(outcome.complete).toBe(false);
      // What the socket buffers took before the cut, not what the fake meant to send.
      expect(outcome.sent).toBeLessThan(64 * 2 ** 20);
    };

    it('refuses a 300 MB answer announced by Content-Length, cutting the connection', async () => {
      scripted({ padTo: 300 * 2 ** 20 });
      await expectCutOff(await failing(ask(engine())));
    });

    it('cuts off an endless chunked answer once 1 MiB has arrived', async () => {
      scripted({ padTo: Infinity });
      await expectCutOff(await failing(ask(engine())));
    });

    it('reads a valid answer of exactly 1 MiB, chunked or announced, and refuses one byte more', async () => {
      for (const chunked of [true, false]) {
        scripted({ padTo: MAX_ANSWER_BYTES, chunked });
        const reply = await ask(engine());
        expect(Object.keys(reply.answers)).toEqual(Object.keys(suite.questions));
      }
      for (const chunked of [true, false]) {
        scripted({ padTo: MAX_ANSWER_BYTES + 1, chunked });
        const err = await failing(ask(engine()));
        expect(err.kind).toBe('bad_response');
        expect(err.message).toContain('larger than 1 MiB');
      }
    });

    it('cuts off an endless error body and lets the status decide', async () => {
      scripted({ status: 503, padTo: Infinity });
      await expectCutOff(await failing(ask(engine())), 'unavailable');
    });
  });
}
