// Row 1, HTTP overhead: decide's standard decision with an instant loopback engine,
// against a bare Hono JSON echo, at each concurrency, in alternating slices.
//
// Targets, all driven by the same load generator with the same connections:
//   echo      bare @hono/node-server JSON echo (the goal's baseline)
//   engine    the bench engine alone, sent the body decide sends it (for the overhead)
//   floor     bare Hono + one engine call (bench/floor-server.js): the least any service
//             in decide's position does; informative, it shows where the limit is
//   standard  POST /v1/decisions, standard depth
//   stress    the same at stress depth (4 facts → 5 engine calls), at one concurrency
import { sideBySide } from '../lib/load.js';
import { fmt, fmtInt, overheadLine, ratioLine, targetsTable } from '../lib/report.js';
import { STANDARD, STRESS } from '../lib/bodies.js';
import { expect, makeKeys, post, startDecide, startEcho, startEngine, startFloor, stopAll } from '../lib/servers.js';
import path from 'node:path';

const CPU_GOAL_MS = 0.25;
// The same goal as a ratio, which travels between machines: issue 18 set 0.25 ms where an
// echo cost 0.04–0.05 ms of server CPU, so about 5.6 echoes' worth.
const CPU_GOAL_ECHOES = 5.6;

export default {
  id: 'http',
  title: '1 HTTP overhead',
  async run(ctx) {
    const { config } = ctx;
    const db = path.join(ctx.tmp, 'http.db');
    const [key] = await makeKeys(db);
    let engine, echo, floor, decide;
    try {
      [engine, echo] = await Promise.all([startEngine(), startEcho()]);
      decide = await startDecide(config, { db, engineUrl: engine.url, name: 'http' });
      const json = { 'content-type': 'application/json' };
      const auth = { ...json, authorization: `Bearer ${key.key}` };

      // Sanity, before any load: each target answers as it should.
      const echoed = await post(`${echo.url}/echo`, json, STANDARD);
      expect(echoed.status === 200 && echoed.text === JSON.stringify(STANDARD), `echo answered ${echoed.status} ${echoed.text}`);
      const before = await engine.stats();
      const std = await post(`${decide.url}/v1/decisions`, auth, STANDARD);
      expect(std.status === 200 && std.json?.result?.selected, `standard decision answered ${std.status} ${std.text}`);
      const afterStd = await engine.stats();
      expect(afterStd.calls - before.calls === 1, `a standard decision made ${afterStd.calls - before.calls} engine calls`);
      const engineBody = afterStd.last; // exactly what decide sends the engine for STANDARD
      const str = await post(`${decide.url}/v1/decisions`, auth, STRESS);
      const afterStress = await engine.stats();
      expect(
        str.status === 200 && str.json?.stress?.checks?.length === 5,
        `stress decision answered ${str.status} ${str.text.slice(0, 300)}`,
      );
      expect(afterStress.calls - afterStd.calls === 5, `a stress decision made ${afterStress.calls - afterStd.calls} engine calls, not 5`);
      floor = await startFloor({ engineUrl: engine.url, engineBody });
      const floored = await post(`${floor.url}/decide`, json, STANDARD);
      expect(floored.status === 200 && floored.json?.answers, `floor answered ${floored.status} ${floored.text}`);

      const targets = {
        echo: { name: 'echo', url: `${echo.url}/echo`, headers: json, body: JSON.stringify(STANDARD) },
        engine: { name: 'engine', url: `${engine.url}/v1/systemone`, headers: json, body: engineBody },
        floor: { name: 'floor', url: `${floor.url}/decide`, headers: json, body: JSON.stringify(STANDARD) },
        standard: { name: 'standard', url: `${decide.url}/v1/decisions`, headers: auth, body: JSON.stringify(STANDARD) },
        stress: { name: 'stress', url: `${decide.url}/v1/decisions`, headers: auth, body: JSON.stringify(STRESS) },
      };
      const serverOf = { echo: 'echo', engine: 'engine', floor: 'floor', standard: 'decide', stress: 'decide' };
      const pids = { decide: decide.pid, engine: engine.pid, echo: echo.pid, floor: floor.pid, loadgen: 'self' };

      const lines = [];
      const details = [];
      const groups = {};
      const stressAt = config.concurrency.includes(config.stressConcurrency) ? config.stressConcurrency : null;
      for (const c of config.concurrency) {
        const names = ['echo', 'engine', 'floor', 'standard', ...(c === stressAt ? ['stress'] : [])];
        ctx.progress(`row 1: c=${c}, ${names.join(', ')} in ${config.slices} alternating slices`);
        const r = await sideBySide(
          names.map((n) => targets[n]),
          {
            connections: c,
            slices: config.slices,
            warmupMs: config.warmupMs,
            sliceWarmupMs: config.sliceWarmupMs,
            durationMs: config.durationMs,
            pids,
          },
        );
        groups[c] = r;
        for (const t of Object.values(r)) ctx.checkErrors(`row 1 ${t.name} c=${c}`, t);
        details.push(targetsTable(r, (n) => serverOf[n]));
        const s = r.standard;
        lines.push(
          ratioLine(`c=${c} decisions/s ÷ echo req/s`, {
            ours: s.perSecond,
            baseline: r.echo.perSecond,
            oursText: `${fmtInt(s.perSecond)}/s`,
            baselineText: `${fmtInt(r.echo.perSecond)}/s`,
            min: 0.5,
          }),
          overheadLine(`c=${c} p50 service overhead (decision − engine)`, {
            oursMs: s.latencyMs.p50,
            baselineMs: r.engine.latencyMs.p50,
            max: c === 1 ? 1 : undefined,
            note: c === 1 ? undefined : 'closed loop at saturation: latency ≈ in-flight ÷ throughput, so this is mostly queueing',
          }),
          overheadLine(`c=${c} p99 service overhead (decision − engine)`, {
            oursMs: s.latencyMs.p99,
            baselineMs: r.engine.latencyMs.p99,
            max: c === 1 ? 2 : undefined,
          }),
          // What the machine allows: when the floor alone takes more than 2 ms at p99, no service in decide's place meets that goal here.
          overheadLine(`c=${c} p99 floor overhead (floor − engine), for comparison`, {
            oursMs: r.floor.latencyMs.p99,
            baselineMs: r.engine.latencyMs.p99,
          }),
          ratioLine(`c=${c} decisions/s ÷ floor req/s (Hono + 1 engine call)`, {
            ours: s.perSecond,
            baseline: r.floor.perSecond,
            oursText: `${fmtInt(s.perSecond)}/s`,
            baselineText: `${fmtInt(r.floor.perSecond)}/s`,
            min: 0.5,
          }),
          ratioLine(`c=${c} floor req/s ÷ echo req/s (the limit of an engine round trip)`, {
            ours: r.floor.perSecond,
            baseline: r.echo.perSecond,
            oursText: `${fmtInt(r.floor.perSecond)}/s`,
            baselineText: `${fmtInt(r.echo.perSecond)}/s`,
          }),
          ratioLine(`c=${c} server CPU ms per decision ÷ per echo`, {
            ours: s.cpuMsPerRequest.decide,
            baseline: r.echo.cpuMsPerRequest.echo,
            oursText: `${fmt(s.cpuMsPerRequest.decide, 3)} ms`,
            baselineText: `${fmt(r.echo.cpuMsPerRequest.echo, 3)} ms`,
            digits: 1,
            // Judged where the issue measured it, under load; at c=1 every wake-up is paid per request.
            max: c === 1 ? undefined : CPU_GOAL_ECHOES,
          }),
          // The goal is in milliseconds (issue 18: ≤ 0.25 ms on SQLite); its ratio to the goal is shown.
          ratioLine(`c=${c} server CPU ms per decision ÷ the goal's 0.25 ms`, {
            ours: s.cpuMsPerRequest.decide,
            baseline: CPU_GOAL_MS,
            oursText: `${fmt(s.cpuMsPerRequest.decide, 3)} ms`,
            baselineText: `${CPU_GOAL_MS} ms`,
            max: 1,
            note: 'CPU of the decide process (all its threads) over the measured windows, per answered decision',
          }),
        );
        if (r.stress) {
          lines.push(
            ratioLine(`c=${c} stress decisions/s (5 engine calls) ÷ standard`, {
              ours: r.stress.perSecond,
              baseline: s.perSecond,
              oursText: `${fmtInt(r.stress.perSecond)}/s`,
              baselineText: `${fmtInt(s.perSecond)}/s`,
            }),
          );
        }
      }
      const [alone, busy] = [Math.min(...config.concurrency), Math.max(...config.concurrency)];
      if (alone < busy) {
        // A request that finds the process idle pays for waking it (caches, the vCPU's
        // halt); under load one wake serves many. The echo does nothing else, so the gap
        // is the machine's price of a wake, paid once per round trip a decision waits on.
        lines.push(
          overheadLine(`server CPU per echo, c=${alone} − c=${busy}: a wake from idle on this machine`, {
            oursMs: groups[alone].echo.cpuMsPerRequest.echo,
            baselineMs: groups[busy].echo.cpuMsPerRequest.echo,
          }),
        );
      }
      return { lines, details: details.join('\n\n'), data: { engineBody: JSON.parse(engineBody), groups } };
    } finally {
      await stopAll(decide, floor, echo, engine);
    }
  },
};
