import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../../src/engine/local/collector.js';

describe('the local engine collects the samplers node-llama-cpp leaves behind', () => {
  it('one full collection per `every` evaluations, after the work in hand has returned', async () => {
    let collections = 0;
    const collector = new Collector(10, () => collections++);
    collector.count(6);
    collector.count(3);
    await turn();
    expect(collections).toBe(0);
    collector.count(1);
    // Not during the evaluation that crossed the line: on the next turn.
    expect(collections).toBe(0);
    await turn();
    expect(collections).toBe(1);
    collector.count(25);
    collector.count(25);
    await turn();
    // However far past the line, one collection at a time.
    expect(collections).toBe(2);
  });

  it('the real one is a V8 full collection, reached without --expose-gc', async () => {
    let ref!: WeakRef<object>;
    (() => {
      ref = new WeakRef({ payload: new Array(10_000).fill(1) });
    })();
    // A WeakRef's target is kept to the end of the job that made it.
    await turn();
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    new Collector(1).count(1);
    await turn();
    await turn();
    expect(ref.deref()).toBeUndefined();
    // It does not leave `gc` in the process's own global scope.
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});
