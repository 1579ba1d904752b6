#!/usr/bin/env node
// What a round of branches costs on node-llama-cpp, apart from decide: `node
// bench/local/lanes.js MODEL '[[312],[14,71,83,61,50,32]]' [ROUNDS]` evaluates, for each
// list of lengths, that many tokens after a shared 200-token prefix, two ways: side by
// side, one sequence (lane) per length, handed to llama.cpp together as the engine hands
// a decision's branches; and one after another on a single sequence cut back to the
// prefix between them. One thread, a context of the engine's shape (8 sequences of
// 4,096 tokens); prints one JSON line per list and way: the median and the
// fastest of ROUNDS (5).
import { getLlama } from 'node-llama-cpp';
import { median } from '../lib/local.js';

const [modelPath, lists = '[[312],[14,71,83,61,50,32]]', rounds = '5'] = process.argv.slice(2);
const PREFIX = 200;
const llama = await getLlama({ build: 'never', maxThreads: 1, logLevel: 'error' });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ threads: 1, sequences: 8, contextSize: { max: 4096 } });
const sequences = Array.from({ length: 8 }, () => context.getSequence());
const text = 'The team already runs PostgreSQL in production and knows it well. Billing needs strict multi-row transactions. ';
const tokens = model.tokenize(text.repeat(40));
const part = (i, n) => tokens.slice(PREFIX + i, PREFIX + i + n);

const ways = {
  async sideBySide(lengths) {
    await Promise.all(lengths.map((_, i) => sequences[i].evaluateWithoutGeneratingNewTokens(tokens.slice(0, PREFIX))));
    const start = performance.now();
    await Promise.all(lengths.map((n, i) => sequences[i].evaluateWithoutGeneratingNewTokens(part(i, n))));
    return performance.now() - start;
  },
  async oneAfterAnother(lengths) {
    const [sequence] = sequences;
    await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(0, PREFIX));
    const start = performance.now();
    for (const [i, n] of lengths.entries()) {
      await sequence.eraseContextTokenRanges([{ start: PREFIX, end: sequence.nextTokenIndex }]);
      await sequence.evaluateWithoutGeneratingNewTokens(part(i, n));
    }
    return performance.now() - start;
  },
};

// The two ways alternate, their order turning each round, so drift of the machine hits both alike.
for (const lengths of JSON.parse(lists)) {
  const times = Object.fromEntries(Object.keys(ways).map((way) => [way, []]));
  for (let r = 0; r < Number(rounds); r++) {
    const order = r % 2 === 0 ? Object.keys(ways) : Object.keys(ways).reverse();
    for (const way of order) {
      await Promise.all(sequences.map((sequence) => sequence.clearHistory()));
      times[way].push(await ways[way](lengths));
    }
  }
  const total = lengths.reduce((a, b) => a + b, 0);
  for (const [way, list] of Object.entries(times)) {
    const ms = median(list);
    console.log(
      JSON.stringify({
        lengths,
        way,
        tokens: total,
        ms: Math.round(ms),
        min: Math.round(Math.min(...list)),
        msPerToken: +(ms / total).toFixed(2),
      }),
    );
  }
}
await context.dispose();
await model.dispose();
await llama.dispose();
