#!/usr/bin/env node
// A clean CPU profile of `decide serve` under one kind of load, for finding what a
// decision costs: node bench/profile.js [standard|stress|mcp] [connections] [seconds]
// Starts the instant engine and `decide serve --cpu-prof`, drives the one target with
// autocannon, stops the server gracefully (which writes the profile) and prints the
// summary of bench/profile-top.js. BENCH_PROFILE_PG=1 serves from a PostgreSQL schema
// (BENCH_PG_URL's server, dropped after) instead of a SQLite file.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killAllNow } from './children.js';
import { MCP_MODERN, STANDARD, STRESS } from './lib/bodies.js';
import { BENCH, readConfig } from './lib/config.js';
import { slice } from './lib/load.js';
import { benchSchema } from './lib/pg-schema.js';
import { fmt, fmtInt } from './lib/report.js';
import { makeKeys, startDecide, startEngine, stopAll } from './lib/servers.js';

for (const name of Object.keys(process.env)) if (/^(DECIDE_|OPENAI_)/.test(name)) delete process.env[name];
const [kind = 'standard', connections = '16', seconds = '10'] = process.argv.slice(2);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'decide-profile-'));
process.on('exit', () => {
  killAllNow();
  rmSync(tmp, { recursive: true, force: true });
});

const config = { ...readConfig(), cpuProf: true };
const schema = process.env.BENCH_PROFILE_PG ? await benchSchema(config.pgUrl) : null;
if (schema?.skipped) throw new Error(schema.skipped);
const db = schema ? schema.url : path.join(tmp, 'profile.db');
const [key] = await makeKeys(db);
const engine = await startEngine();
const name = `profile-${kind}`;
const decide = await startDecide(config, { db, engineUrl: engine.url, name });
const auth = { 'content-type': 'application/json', authorization: `Bearer ${key.key}` };
const target =
  kind === 'mcp'
    ? {
        url: `${decide.url}/mcp`,
        headers: { ...auth, accept: 'application/json, text/event-stream', ...MCP_MODERN.headers },
        body: JSON.stringify(MCP_MODERN.message),
      }
    : { url: `${decide.url}/v1/decisions`, headers: auth, body: JSON.stringify(kind === 'stress' ? STRESS : STANDARD) };
const r = await slice({ ...target, connections: Number(connections), warmupMs: 1000, durationMs: Number(seconds) * 1000 });
const ok = r.latencies.length;
process.stderr.write(
  `profile: ${kind} c=${connections}: ${fmtInt((ok * 1000) / r.windowMs)}/s, ${JSON.stringify(r.statuses)}, p50 ${fmt(r.latencies.sort((a, b) => a - b)[ok >> 1])} ms\n`,
);
await stopAll(decide, engine);
await schema?.drop();
const dir = path.join(BENCH, 'profiles');
const file = readdirSync(dir)
  .filter((f) => f.startsWith(name))
  .sort()
  .pop();
process.stdout.write(execFileSync(process.execPath, [path.join(BENCH, 'profile-top.js'), path.join(dir, file), process.env.TOP ?? '40']));
