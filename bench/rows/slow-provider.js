// Row 10, slow provider: admission in front of a provider that takes 5 s to answer
// (BENCH_SLOW_PROVIDER_MS), with the 30 s decision deadline. Its latency is waiting,
// not this process's work, so an idle server must let in every decision it can answer
// in time: one decision alone (timed with nothing beside it), then four waves of 30 at
// once, each after the last has been answered. Goal: all 120 admitted and answered.
// Then a cold burst of 900 at a fresh server: the engine's pool holds 32 connections,
// so the rest must be refused at once with 429 and Retry-After, not left to wait in
// the pool into 504. Goal: no 504.
import path from 'node:path';
import { STANDARD } from '../lib/bodies.js';
import { fmt, ratioLine } from '../lib/report.js';
import { expect, makeKeys, post, startDecide, startEngine, stopAll } from '../lib/servers.js';

const DELAY_MS = Number(process.env.BENCH_SLOW_PROVIDER_MS ?? 5_000);
const WAVES = 4;
const WAVE = 30;
const BURST = 900;

export default {
  id: 'slow-provider',
  title: '10 Slow provider',
  async run(ctx) {
    const { config } = ctx;
    let engine, decide;
    const count = (answers, status) => answers.filter((a) => a.status === status).length;
    try {
      engine = await startEngine({ delayMs: DELAY_MS });
      const env = { DECIDE_ENGINE_TIMEOUT_MS: '30000' };

      const db = path.join(ctx.tmp, 'slow-provider.db');
      const [key] = await makeKeys(db);
      const auth = { 'content-type': 'application/json', authorization: `Bearer ${key.key}` };
      decide = await startDecide(config, { db, engineUrl: engine.url, name: 'slow-provider', env });
      const url = `${decide.url}/v1/decisions`;
      ctx.progress(`row 10: one decision alone, then ${WAVES} waves of ${WAVE}, provider ${DELAY_MS} ms`);
      const alone = await post(url, auth, STANDARD);
      expect(alone.status === 200, `a lone decision answered ${alone.status} ${alone.text.slice(0, 300)}`);
      const waves = [];
      for (let i = 0; i < WAVES; i++) {
        const answers = await Promise.all(Array.from({ length: WAVE }, () => post(url, auth, STANDARD)));
        waves.push(count(answers, 200));
      }
      await decide.stop();

      const coldDb = path.join(ctx.tmp, 'slow-provider-cold.db');
      const [coldKey] = await makeKeys(coldDb);
      const coldAuth = { 'content-type': 'application/json', authorization: `Bearer ${coldKey.key}` };
      decide = await startDecide(config, { db: coldDb, engineUrl: engine.url, name: 'slow-provider-cold', env });
      ctx.progress(`row 10: a cold burst of ${BURST}`);
      const burst = await Promise.all(Array.from({ length: BURST }, () => post(`${decide.url}/v1/decisions`, coldAuth, STANDARD)));
      const refused = burst.filter((a) => a.status === 429);
      const withRetry = refused.filter((a) => a.json?.code === 'engine_busy').length;
      const admitted = waves.reduce((a, b) => a + b, 0);
      return {
        lines: [
          ratioLine(`answered ÷ sent, ${WAVES} waves of ${WAVE}, provider ${DELAY_MS} ms, idle server`, {
            ours: admitted,
            baseline: WAVES * WAVE,
            oursText: `${admitted}`,
            baselineText: `${WAVES * WAVE}`,
            min: 1,
            digits: 2,
            note: `per wave: ${waves.join(', ')}`,
          }),
          {
            measure: `504s in a cold burst of ${BURST}`,
            ours: fmt(count(burst, 504)),
            baseline: '0',
            result: fmt(count(burst, 504)),
            value: count(burst, 504),
            goal: '= 0',
            met: count(burst, 504) === 0,
            note: `${count(burst, 200)} answered, ${refused.length} refused 429 (${withRetry} engine_busy)`,
          },
        ],
        data: { waves, burst: { ok: count(burst, 200), refused: refused.length, timeouts: count(burst, 504) } },
      };
    } finally {
      await stopAll(decide, engine);
    }
  },
};
