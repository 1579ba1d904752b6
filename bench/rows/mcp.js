// Row 3, MCP: `weigh_decision` through POST /mcp against the same decision through
// POST /v1/decisions, on one `decide serve` with the instant engine, in alternating
// slices. The goal's figure is the 2026-07-28 era (one self-contained request); the
// 2025 era (2025-11-25, stateless: a fresh server and transport per request) is shown
// beside it. Goals: ≥ 0.7x the decisions/s, and ≤ 1.2x the server CPU per call (issue 18:
// what a stateless request need not rebuild, it should not).
import path from 'node:path';
import { sideBySide } from '../lib/load.js';
import { MCP_LEGACY, MCP_MODERN, STANDARD } from '../lib/bodies.js';
import { fmt, fmtInt, ratioLine, targetsTable } from '../lib/report.js';
import { expect, makeKeys, post, startDecide, startEngine, stopAll } from '../lib/servers.js';

export default {
  id: 'mcp',
  title: '3 MCP',
  async run(ctx) {
    const { config } = ctx;
    const db = path.join(ctx.tmp, 'mcp.db');
    const [key] = await makeKeys(db);
    let engine, decide;
    try {
      engine = await startEngine();
      decide = await startDecide(config, { db, engineUrl: engine.url, name: 'mcp' });
      const auth = { 'content-type': 'application/json', authorization: `Bearer ${key.key}` };
      const mcp = { ...auth, accept: 'application/json, text/event-stream' };

      const v1 = await post(`${decide.url}/v1/decisions`, auth, STANDARD);
      expect(v1.status === 200 && v1.json?.result?.selected, `/v1 answered ${v1.status} ${v1.text}`);
      for (const [era, m] of [
        ['2026-07-28', MCP_MODERN],
        ['2025-11-25', MCP_LEGACY],
      ]) {
        const res = await post(`${decide.url}/mcp`, { ...mcp, ...m.headers }, m.message);
        const result = res.json?.result;
        expect(
          res.status === 200 && result && !result.isError && result.structuredContent?.result?.selected,
          `/mcp weigh_decision (${era}) answered ${res.status} ${res.text.slice(0, 400)}`,
        );
      }

      const targets = [
        { name: 'v1', url: `${decide.url}/v1/decisions`, headers: auth, body: JSON.stringify(STANDARD) },
        {
          name: 'mcp-2026',
          url: `${decide.url}/mcp`,
          headers: { ...mcp, ...MCP_MODERN.headers },
          body: JSON.stringify(MCP_MODERN.message),
        },
        {
          name: 'mcp-2025',
          url: `${decide.url}/mcp`,
          headers: { ...mcp, ...MCP_LEGACY.headers },
          body: JSON.stringify(MCP_LEGACY.message),
        },
      ];
      const lines = [];
      const details = [];
      const groups = {};
      for (const c of config.mcpConcurrency) {
        ctx.progress(`row 3: c=${c}, /v1 vs /mcp (2026-07-28, 2025-11-25) in ${config.slices} alternating slices`);
        const r = await sideBySide(targets, {
          connections: c,
          slices: config.slices,
          warmupMs: config.warmupMs,
          sliceWarmupMs: config.sliceWarmupMs,
          durationMs: config.durationMs,
          pids: { decide: decide.pid, engine: engine.pid, loadgen: 'self' },
        });
        groups[c] = r;
        for (const t of Object.values(r)) ctx.checkErrors(`row 3 ${t.name} c=${c}`, t);
        details.push(targetsTable(r, () => 'decide'));
        const per = (t) => `${fmtInt(t.perSecond)}/s`;
        const cpu = (t) => t.cpuMsPerRequest.decide;
        const cpuText = (t) => `${fmt(cpu(t), 3)} ms`;
        lines.push(
          ratioLine(`c=${c} weigh_decision /mcp (2026-07-28) ÷ /v1 decisions/s`, {
            ours: r['mcp-2026'].perSecond,
            baseline: r.v1.perSecond,
            oursText: per(r['mcp-2026']),
            baselineText: per(r.v1),
            min: 0.7,
          }),
          ratioLine(`c=${c} weigh_decision /mcp (2025-11-25) ÷ /v1 decisions/s`, {
            ours: r['mcp-2025'].perSecond,
            baseline: r.v1.perSecond,
            oursText: per(r['mcp-2025']),
            baselineText: per(r.v1),
          }),
          ratioLine(`c=${c} server CPU ms per weigh_decision: /mcp (2026-07-28) ÷ /v1`, {
            ours: cpu(r['mcp-2026']),
            baseline: cpu(r.v1),
            oursText: cpuText(r['mcp-2026']),
            baselineText: cpuText(r.v1),
            max: 1.2,
            note: 'CPU of the decide process (all its threads) over the measured windows, per answered call',
          }),
          ratioLine(`c=${c} server CPU ms per weigh_decision: /mcp (2025-11-25) ÷ /v1`, {
            ours: cpu(r['mcp-2025']),
            baseline: cpu(r.v1),
            oursText: cpuText(r['mcp-2025']),
            baselineText: cpuText(r.v1),
          }),
        );
      }
      return { lines, details: details.join('\n\n'), data: groups };
    } finally {
      await stopAll(decide, engine);
    }
  },
};
