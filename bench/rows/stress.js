// Row 2, stress: the wall time of a 12-fact stress decision (1 base call + 12
// without-fact calls, run together) against one standard decision on the same context,
// with an engine that takes BENCH_ENGINE_DELAY_MS (200 ms) to answer each call. One
// request at a time, the two depths in alternating slices. Goal: ≤ 1.3x.
import path from 'node:path';
import { sideBySide } from '../lib/load.js';
import { STANDARD_12, STRESS_12 } from '../lib/bodies.js';
import { ratioLine, fmt, targetsTable } from '../lib/report.js';
import { expect, makeKeys, post, startDecide, startEngine, stopAll } from '../lib/servers.js';

export default {
  id: 'stress',
  title: '2 Stress',
  async run(ctx) {
    const { config } = ctx;
    const delay = config.engineDelayMs;
    const db = path.join(ctx.tmp, 'stress.db');
    const [key] = await makeKeys(db);
    let engine, decide;
    try {
      engine = await startEngine({ delayMs: delay });
      decide = await startDecide(config, { db, engineUrl: engine.url, name: 'stress' });
      const auth = { 'content-type': 'application/json', authorization: `Bearer ${key.key}` };

      const before = await engine.stats();
      const checked = await post(`${decide.url}/v1/decisions`, auth, STRESS_12);
      const after = await engine.stats();
      expect(checked.status === 200, `stress decision answered ${checked.status} ${checked.text.slice(0, 300)}`);
      expect(
        checked.json.stress?.checks?.length === 13,
        `a 12-fact stress decision has ${checked.json.stress?.checks?.length} checks, not 13`,
      );
      expect(after.calls - before.calls === 13, `a 12-fact stress decision made ${after.calls - before.calls} engine calls, not 13`);

      const url = `${decide.url}/v1/decisions`;
      ctx.progress(`row 2: standard vs 12-fact stress, one at a time, engine ${delay} ms`);
      const r = await sideBySide(
        [
          { name: 'standard', url, headers: auth, body: JSON.stringify(STANDARD_12) },
          { name: 'stress-12', url, headers: auth, body: JSON.stringify(STRESS_12) },
        ],
        {
          connections: 1,
          slices: config.slices,
          warmupMs: Math.max(2 * delay, Math.min(config.warmupMs, 1_000)),
          sliceWarmupMs: Math.max(delay + 50, config.sliceWarmupMs),
          durationMs: config.stressDurationMs,
          pids: { decide: decide.pid, engine: engine.pid, loadgen: 'self' },
        },
      );
      for (const t of Object.values(r)) ctx.checkErrors(`row 2 ${t.name}`, t);
      const s = r.standard.latencyMs;
      const x = r['stress-12'].latencyMs;
      return {
        lines: [
          ratioLine(`p50 wall time, 12-fact stress ÷ standard (engine ${delay} ms)`, {
            ours: x.p50,
            baseline: s.p50,
            oursText: `${fmt(x.p50, 1)} ms`,
            baselineText: `${fmt(s.p50, 1)} ms`,
            max: 1.3,
            digits: 2,
          }),
          ratioLine(`p99 wall time, 12-fact stress ÷ standard`, {
            ours: x.p99,
            baseline: s.p99,
            oursText: `${fmt(x.p99, 1)} ms`,
            baselineText: `${fmt(s.p99, 1)} ms`,
            digits: 2,
            note: `${r['stress-12'].ok} stress and ${r.standard.ok} standard decisions`,
          }),
        ],
        details: targetsTable(r, () => 'decide'),
        data: r,
      };
    } finally {
      await stopAll(decide, engine);
    }
  },
};
