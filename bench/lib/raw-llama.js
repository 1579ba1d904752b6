// Raw node-llama-cpp beside the local engine (row 5d): the same model file loaded
// again through node-llama-cpp's own API (getLlama, loadModel, createContext), a
// context shaped as the engine's (as many sequences, as many tokens each, the same
// threads), and a decision's readings (the token sequences the engine builds,
// src/engine/local/prompt.ts) evaluated two plain ways. Both read what the engine
// reads: the logits of the reading's letters after its last token (the same
// `controlledEvaluate` request), turned into probabilities by the same softmax.
//
// - `whole`: every reading's prompt from an empty sequence, one after another.
// - `tree`: the readings' prefix tree (the engine's own `prefixTree`) depth first on
//   one sequence: each node evaluated once, the sequence cut back to the branch point
//   (node-llama-cpp's `adaptStateToTokens`; from a checkpoint on a model whose state
//   needs one) before the next branch. The fewest tokens any evaluation of them takes.
//
// Tokens come in already tokenised: what is timed is their evaluation alone.
const dist = (file) => import(new URL(`../../dist/${file}`, import.meta.url).href);

/** `settings`: the engine's own (`engine.settings`), so the context has its shape. */
export async function openRaw(modelPath, { threads, sequences, contextSize }) {
  const runtime = await import('node-llama-cpp');
  const { prefixTree } = await dist('engine/local/prefix-tree.js');
  const llama = await runtime.getLlama({ build: 'never', maxThreads: threads, logLevel: 'error' });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ threads, sequences, contextSize });
  const sequence = context.getSequence();
  let evaluated = 0;

  /** Brings the sequence to hold `path`, evaluating what it lacks; the letters' logits after its last token when asked. */
  async function extend(path, letters) {
    await sequence.adaptStateToTokens(path, false);
    let from = sequence.nextTokenIndex;
    if (letters && from >= path.length) {
      // All held already, but logits are read as a token is evaluated: that token again (as the engine does).
      await sequence.eraseContextTokenRanges([{ start: path.length - 1, end: sequence.nextTokenIndex }]);
      from = path.length - 1;
    }
    const input = path.slice(from);
    evaluated += input.length;
    if (!letters) {
      if (input.length > 0) await sequence.evaluateWithoutGeneratingNewTokens(input);
      return null;
    }
    const last = input.pop();
    const results = await sequence.controlledEvaluate([...input, [last, { generateNext: { logits: { filter: { tokens: letters } } } }]]);
    const logits = results.at(-1)?.next?.logits;
    if (!logits) throw new Error('node-llama-cpp returned no logits for the answer');
    return logits;
  }

  async function empty() {
    await sequence.clearHistory();
    if (sequence.nextTokenIndex !== 0) throw new Error('the sequence still holds tokens after clearHistory');
  }

  const read = (reading, logits) => softmax(reading.letters.map((letter) => logits.get(letter) ?? -Infinity));

  return {
    /** Every reading whole, each from an empty sequence: per reading its probabilities; the tokens evaluated. */
    async whole(readings) {
      evaluated = 0;
      const probabilities = [];
      for (const reading of readings) {
        await empty();
        probabilities.push(read(reading, await extend(reading.tokens, reading.letters)));
      }
      return { probabilities, evaluated };
    },

    /** The readings' prefix tree, each node once, from an empty sequence. */
    async tree(readings) {
      evaluated = 0;
      const probabilities = new Array(readings.length);
      const walk = async (node) => {
        const letters = node.readings.length > 0 ? [...new Set(node.readings.flatMap((i) => readings[i].letters))] : null;
        const logits = await extend(node.path, letters);
        for (const i of node.readings) probabilities[i] = read(readings[i], logits);
        if (node.children.length > 1) await sequence.takeCheckpoint(); // a no-op where the state can be cut back anywhere
        for (const child of node.children) await walk(child);
      };
      await empty();
      await walk(prefixTree(readings));
      return { probabilities, evaluated };
    },

    model,
    runtime,
    async close() {
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}

/** Probabilities from logits, in the same order (the engine's own, prefix-tree.ts). */
function softmax(logits) {
  const max = Math.max(...logits);
  const weights = logits.map((x) => Math.exp(x - max));
  const sum = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / sum);
}
