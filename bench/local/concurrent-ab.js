// What reading each request alone costs when decisions arrive at once: two builds'
// local engines (each its own dist/, same node_modules) on one GGUF, driven in
// alternating slices at c=1, 4 and 8, in process (no HTTP), standard decisions with
// debias reverse, each with a question of its own (as different callers send).
//
//   node bench/local/concurrent-ab.js <before-root> <after-root> <model.gguf> [decisions per slice] [slices]
//
// Prints decisions/s per build and concurrency and the ratio after ÷ before. The
// engine before 2026-12-02 shared its context's sequences between decisions at once
// (one batch, a borrowed prefix); since then decisions take turns on one sequence.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { STANDARD } from '../lib/bodies.js';

const [beforeRoot, afterRoot, modelPath, perSliceText = '16', slicesText = '3'] = process.argv.slice(2);
if (!modelPath) {
  console.error('usage: node bench/local/concurrent-ab.js <before-root> <after-root> <model.gguf> [decisions per slice] [slices]');
  process.exit(2);
}
const perSlice = Number(perSliceText);
const slices = Number(slicesText);
const threads = Number(process.env.BENCH_THREADS ?? 2);

async function load(root) {
  const dist = (file) => import(pathToFileURL(path.resolve(root, 'dist', file)).href);
  const { createLocalEngine } = await dist('engine/local/local.js');
  const { DecisionRequest } = await dist('contract/decision.js');
  const { runDecision } = await dist('decision/run.js');
  const engine = await createLocalEngine({ modelPath, threads });
  return { engine, DecisionRequest, runDecision };
}

let asked = 0;
/** `count` decisions, `concurrency` under way at once; decisions/s. */
async function drive({ engine, DecisionRequest, runDecision }, concurrency, count) {
  const next = () => DecisionRequest.parse({ ...STANDARD, question: `${STANDARD.question} (case ${++asked})` });
  let left = count;
  const started = performance.now();
  const worker = async () => {
    while (left-- > 0) await runDecision(next(), engine, { signal: new AbortController().signal, debias: 'reverse' });
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return count / ((performance.now() - started) / 1000);
}

const builds = { before: await load(beforeRoot), after: await load(afterRoot) };
for (const build of Object.values(builds)) await drive(build, 4, 4); // warm-up
const rates = {};
for (let slice = 0; slice < slices; slice++) {
  for (const concurrency of [1, 4, 8]) {
    // Alternating which goes first, so drift of the machine hits both alike.
    const order = slice % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const name of order) {
      const rate = await drive(builds[name], concurrency, perSlice);
      (rates[`${name} c=${concurrency}`] ??= []).push(rate);
      console.error(`slice ${slice + 1}/${slices} ${name} c=${concurrency}: ${rate.toFixed(2)} decisions/s`);
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`model ${path.basename(modelPath)}, ${threads} threads, ${perSlice} decisions × ${slices} slices per cell`);
for (const concurrency of [1, 4, 8]) {
  const before = median(rates[`before c=${concurrency}`]);
  const after = median(rates[`after c=${concurrency}`]);
  console.log(
    `c=${concurrency}: before ${before.toFixed(2)}/s, after ${after.toFixed(2)}/s, after ÷ before ${(after / before).toFixed(2)}x ` +
      `(slices: before ${rates[`before c=${concurrency}`].map((r) => r.toFixed(2)).join(', ')}; after ${rates[`after c=${concurrency}`].map((r) => r.toFixed(2)).join(', ')})`,
  );
}
for (const build of Object.values(builds)) await build.engine.close?.();
