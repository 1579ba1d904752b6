// The shapes of the generated models: llama-architecture transformers with the
// layers, widths and attention heads of Qwen2.5 0.5B and 1.5B Instruct (1.5B is
// decide's default model), so each evaluated token costs what it costs in those
// models. The vocabulary has Qwen's size, 151,936 tokens (tokenizer.js's, padded), so
// the embedding, the output head and the runtime's per-vocabulary buffers are Qwen's
// size too: 0.49 B and 1.54 B parameters. Input and output embeddings are tied, as in
// Qwen.
//
// `test` is the tests' tiny model, answering in milliseconds, with llama 2's vocabulary
// size (32,000 tokens; the file is a few megabytes, enough for the model-download
// tests to cut and resume a transfer in). Its weights are f16, not quantised: llama.cpp
// repacks Q4_0 weights for kernels whose rounding depends on how many tokens a batch
// holds, and the tests compare answers given in different batches. Their spread is
// wider than a trained model's, so that an answer depends on the text enough for a
// test to tell two texts' answers apart: at 0.02 every answer sits within 0.001 of
// even odds. And it answers in letters, as a trained instruct model does (letters.js):
// so its output head is a tensor of its own.

export const SHAPES = {
  '0.5b': { layers: 24, width: 896, ffn: 4864, heads: 14, kvHeads: 2, vocab: 151_936 },
  '1.5b': { layers: 28, width: 1536, ffn: 8960, heads: 12, kvHeads: 2, vocab: 151_936 },
  test: { layers: 2, width: 64, ffn: 128, heads: 4, kvHeads: 2, vocab: 32_000, quant: 'f16', weightStd: 0.3, letters: true },
};

/** As in Qwen2.5. */
const CONTEXT_LENGTH = 32_768;
const ROPE_BASE = 1_000_000;
const RMS_EPSILON = 1e-6;

/** The architecture's metadata entries for `shape` (`entry` from format.js). */
export function architectureMetadata(shape, entry) {
  const headSize = shape.width / shape.heads;
  return [
    entry('llama.context_length', 'u32', CONTEXT_LENGTH),
    entry('llama.embedding_length', 'u32', shape.width),
    entry('llama.block_count', 'u32', shape.layers),
    entry('llama.feed_forward_length', 'u32', shape.ffn),
    entry('llama.rope.dimension_count', 'u32', headSize),
    entry('llama.rope.freq_base', 'f32', ROPE_BASE),
    entry('llama.attention.head_count', 'u32', shape.heads),
    entry('llama.attention.head_count_kv', 'u32', shape.kvHeads),
    entry('llama.attention.layer_norm_rms_epsilon', 'f32', RMS_EPSILON),
  ];
}

/**
 * The tensors llama.cpp loads for the llama architecture, named as it looks them up,
 * with dimensions innermost (the input side of a weight matrix) first. Matrices take
 * `quant`, norms stay f32.
 */
export function tensors(shape, vocab, quant) {
  const kvWidth = (shape.width / shape.heads) * shape.kvHeads;
  const { width, ffn } = shape;
  const list = [{ name: 'token_embd.weight', dims: [width, vocab], type: quant }];
  for (let i = 0; i < shape.layers; i++) {
    const blk = (part, dims, type = quant) => list.push({ name: `blk.${i}.${part}.weight`, dims, type });
    blk('attn_norm', [width], 'f32');
    blk('attn_q', [width, width]);
    blk('attn_k', [width, kvWidth]);
    blk('attn_v', [width, kvWidth]);
    blk('attn_output', [width, width]);
    blk('ffn_norm', [width], 'f32');
    blk('ffn_gate', [width, ffn]);
    blk('ffn_up', [width, ffn]);
    blk('ffn_down', [ffn, width]);
  }
  list.push({ name: 'output_norm.weight', dims: [width], type: 'f32' });
  if (shape.letters) list.push({ name: 'output.weight', dims: [width, vocab], type: quant });
  return list;
}

export const parameters = (list) => list.reduce((sum, t) => sum + t.dims.reduce((a, b) => a * b, 1), 0);
