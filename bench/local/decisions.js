#!/usr/bin/env node
// One measurement of the local engine, in a process of its own (llama.cpp's threads
// are per process): `node bench/local/decisions.js MODEL THREADS CONCURRENCY SECONDS
// [standard|stress]` loads MODEL with THREADS threads, keeps CONCURRENCY decisions
// under way for SECONDS after a warm-up, and prints one JSON line: decisions/s, p50.
import { STANDARD, STRESS } from '../lib/bodies.js';

const [modelPath, threads, concurrency, seconds, kind = 'standard'] = process.argv.slice(2);
const dist = (file) => import(new URL(`../../dist/${file}`, import.meta.url).href);
const { createLocalEngine } = await dist('engine/local/local.js');
const { DecisionRequest } = await dist('contract/decision.js');
const { runDecision } = await dist('decision/run.js');

const engine = await createLocalEngine({ modelPath, threads: Number(threads) });
const request = DecisionRequest.parse(kind === 'stress' ? STRESS : STANDARD);
const decide = () => runDecision(request, engine, { signal: new AbortController().signal, debias: 'reverse' });

for (let i = 0; i < 3; i++) await decide(); // warm-up: the first evaluations allocate
const latencies = [];
const endAt = performance.now() + Number(seconds) * 1000;
const started = performance.now();
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (performance.now() < endAt) {
      const t = performance.now();
      await decide();
      latencies.push(performance.now() - t);
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
await engine.close();
process.stdout.write(
  JSON.stringify({
    threads: Number(threads),
    concurrency: Number(concurrency),
    decisions: latencies.length,
    perSecond: latencies.length / elapsed,
    p50: latencies[latencies.length >> 1],
  }) + '\n',
);
