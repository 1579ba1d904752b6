import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/contract/index.js';
import { EngineError } from '../../src/engine/engine.js';
import { Admission, type Slot } from '../../src/service/admission.js';

/**
 * The admission rule on a clock the test moves: who gets a slot, who waits, who is
 * refused at once and with what Retry-After. The service around it is tested over
 * HTTP and MCP (test/http/admission.test.ts) and on the local engine.
 */
describe('admission in front of an engine of known capacity', () => {
  let now = 0;
  const admission = (slots: number, deadlineMs = 10_000, queue = true) =>
    new Admission({ slots, queue, deadlineMs, maxInFlight: 8, now: () => now, loopDelayMs: () => 0 });
  const open = () => new AbortController().signal;
  /** One decision of `ms` in its slot, so the depth has been timed. */
  const timed = async (gate: Admission, ms: number, depth: 'standard' | 'stress' = 'standard') => {
    const slot = await gate.enter(depth, open());
    now += ms;
    slot.leave();
  };
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  };

  it('lets decisions in up to its slots, then refuses at once while nothing has been timed', async () => {
    const gate = admission(2);
    await gate.enter('standard', open());
    await gate.enter('standard', open());
    const busy = await refusal(gate.enter('standard', open()));
    expect(busy.code).toBe('engine_busy');
    expect(busy.message).toContain('no decision of this depth has been timed yet');
    expect(busy.retryAfter).toBe(1);
    expect(gate.load).toEqual({ running: 2, waiting: 0 });
  });

  it('queues a decision whose expected wait fits half the deadline, and hands it the slot of the one leaving', async () => {
    const gate = admission(1, 10_000);
    await timed(gate, 1_000);
    const first = await gate.enter('standard', open());
    let second: Slot | undefined;
    const waiting = gate.enter('standard', open()).then((slot) => (second = slot));
    expect(gate.load).toEqual({ running: 1, waiting: 1 });
    now += 400;
    first.leave();
    await waiting;
    expect(second).toBeDefined();
    expect(gate.load).toEqual({ running: 1, waiting: 0 });
  });

  it('refuses a newcomer whose expected wait and own time pass half the deadline, saying when to retry', async () => {
    const gate = admission(1, 10_000);
    await timed(gate, 2_000);
    await gate.enter('standard', open()); // running: 2 s left
    void gate.enter('standard', open()).catch(() => undefined); // waiting: 2 s + 2 s of its own = 4 s ≤ 5 s
    expect(gate.load.waiting).toBe(1);
    // A third would wait 4 s and take 2 s: 6 s, 1 s past the 5 s it may use.
    const busy = await refusal(gate.enter('standard', open()));
    expect(busy.code).toBe('engine_busy');
    expect(busy.message).toContain('expected wait (4000 ms)');
    expect(busy.retryAfter).toBe(1);
    expect(gate.load.waiting).toBe(1);
  });

  it('times each depth apart: one stress decision not yet timed waits, counted at the slowest time seen, and its slot times stress', async () => {
    const gate = admission(1);
    await timed(gate, 100);
    const standard = await gate.enter('standard', open());
    let stress: Slot | undefined;
    const waiting = gate.enter('stress', open()).then((slot) => (stress = slot));
    // A second one would wait behind a depth nobody has timed: refused, not guessed at.
    expect((await refusal(gate.enter('stress', open()))).message).toContain('no decision of this depth has been timed yet');
    expect(gate.load).toEqual({ running: 1, waiting: 1 });
    now += 100;
    standard.leave();
    await waiting;
    now += 3_000;
    stress!.leave();
    // Timed now: a stress decision of 3 s may wait behind one of 3 s (6 s > half of 10 s: refused with the reason).
    const running = await gate.enter('stress', open());
    expect((await refusal(gate.enter('stress', open()))).message).toContain('expected wait (3000 ms)');
    running.leave();
  });

  it('under standard decisions that keep every slot taken, a stress decision takes the next slot that leaves', async () => {
    const gate = admission(2);
    await timed(gate, 100);
    const first = await gate.enter('standard', open());
    await gate.enter('standard', open());
    const stress = gate.enter('stress', open());
    const later = gate.enter('standard', open()).catch(() => undefined);
    expect(gate.load).toEqual({ running: 2, waiting: 2 });
    now += 50;
    first.leave();
    await expect(stress).resolves.toBeDefined();
    expect(gate.load).toEqual({ running: 2, waiting: 1 });
    void later;
  });

  it('a waiting decision whose deadline passes leaves the queue with a timeout, the others keep their places', async () => {
    const gate = admission(1);
    await timed(gate, 100);
    const first = await gate.enter('standard', open());
    const deadline = new AbortController();
    const abandoned = gate.enter('standard', deadline.signal).then(
      () => null,
      (e: unknown) => e,
    );
    const kept = gate.enter('standard', open());
    deadline.abort();
    const error = await abandoned;
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).kind).toBe('timeout');
    expect(gate.load.waiting).toBe(1);
    first.leave();
    await kept;
    expect(gate.load).toEqual({ running: 1, waiting: 0 });
  });

  it('without a queue (a provider that queues on its side) it refuses at once beyond its slots', async () => {
    const gate = admission(1, 10_000, false);
    await timed(gate, 10);
    await gate.enter('standard', open());
    const busy = await refusal(gate.enter('standard', open()));
    expect(busy.message).toContain('1 decisions are under way');
  });

  it('never holds more than maxInFlight decisions, whatever the estimates', async () => {
    const gate = admission(1, 1_000_000);
    await timed(gate, 1);
    await gate.enter('standard', open());
    for (let i = 0; i < 7; i++) void gate.enter('standard', open()).catch(() => undefined);
    expect(gate.load).toEqual({ running: 1, waiting: 7 });
    expect((await refusal(gate.enter('standard', open()))).message).toContain('8 decisions are under way');
  });
});

/**
 * Shedding by queue time, for every engine (here one with ample slots and no queue,
 * as a provider over HTTP): a decision whose likely time beside the decisions under
 * way would carry it past the deadline is refused, unless none of its depth runs.
 */
describe('shedding by queue time', () => {
  let now = 0;
  let loopDelay = 0;
  /** How much of the time that passes is this process's CPU: all of it where the work is here (a starved process). */
  let cpuShare = 1;
  const provider = (deadlineMs = 10_000) =>
    new Admission({ slots: 512, queue: false, deadlineMs, now: () => now, loopDelayMs: () => loopDelay, cpuMs: () => now * cpuShare });
  const open = () => new AbortController().signal;
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  };
  /** One standard decision of 1 s, alone: likely 1 s + 2 × 0.5 s (its deviation starts at half) = 2 s for each decision sharing the process. */
  const timedAlone = async (gate: Admission) => {
    const slot = await gate.enter('standard', open());
    now += 1_000;
    slot.leave();
  };

  it('lets in as many as would finish in time together, refuses the next saying when to retry, and lets in again once fewer run', async () => {
    loopDelay = 0;
    const gate = provider();
    await timedAlone(gate);
    const running: Slot[] = [];
    for (let i = 0; i < 5; i++) running.push(await gate.enter('standard', open())); // the 5th: 5 × 2 s fits 10 s
    expect(gate.load.running).toBe(5);
    const busy = await refusal(gate.enter('standard', open())); // 6 × 2 s: 2 s past
    expect(busy.code).toBe('engine_busy');
    expect(busy.message).toContain('past the 10000 ms deadline');
    expect(busy.retryAfter).toBe(2);
    expect(() => gate.refuseLate('standard')).toThrow(ServiceError);
    running.pop()!.leave();
    running.pop()!.leave();
    await gate.enter('standard', open());
  });

  it('counts how late the event loop runs', async () => {
    loopDelay = 0;
    const gate = provider();
    await timedAlone(gate);
    await gate.enter('standard', open());
    await gate.enter('standard', open()); // beside 1: 2 × 2 s
    loopDelay = 5_000; // beside 2: 3 × 2 s + 5 s
    expect((await refusal(gate.enter('standard', open()))).code).toBe('engine_busy');
    loopDelay = 0;
  });

  it('lets one of a depth in while none of it runs, so it keeps being timed, unless the loop delay alone spends the deadline', async () => {
    loopDelay = 0;
    const gate = provider(1_500);
    await timedAlone(gate); // 2 s likely, alone: past 1.5 s
    const probe = await gate.enter('standard', open());
    await refusal(gate.enter('standard', open()));
    // Another depth is judged on its own times: stress has none yet.
    await gate.enter('stress', open());
    probe.leave();
    loopDelay = 1_500;
    await refusal(gate.enter('standard', open()));
    loopDelay = 0;
  });

  it('counts a slow provider as latency, not work: an idle server lets in every decision whose deadline it can meet', async () => {
    loopDelay = 0;
    cpuShare = 0.001; // 1 ms of CPU a second: the decisions wait on the provider
    const gate = provider();
    await timedAlone(gate); // 1 s, nearly all of it the provider's
    const running: Slot[] = [];
    for (let i = 0; i < 100; i++) running.push(await gate.enter('standard', open()));
    expect(gate.load.running).toBe(100);
    // A latency that alone would carry a decision past the deadline still sheds.
    const stalled = provider();
    const slow = await stalled.enter('standard', open());
    now += 9_000;
    slow.leave();
    await stalled.enter('standard', open()); // none of the depth running: let in, so it stays timed
    expect((await refusal(stalled.enter('standard', open()))).message).toContain('past the 10000 ms deadline');
    cpuShare = 1;
  });
});
