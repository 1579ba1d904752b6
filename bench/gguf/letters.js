// The tests' tiny model answers in letters. Its weights are random, and a random
// output head spreads the next token's probability over the whole vocabulary: the
// 40 tokens of the letters A to T (alone and after a space) would hold about a
// thousandth of it, and the local engine refuses a reading whose labels hold less
// than half (src/engine/labels.ts). A trained instruct model puts most of it there,
// so the tiny model is given the same habit, and nothing else:
//
// - one dimension of the residual stream is held constant: every token's embedding
//   has CONSTANT there, and no layer writes to it (that row of each attention output
//   and feed-forward down projection is zero), so after the final norm it is the
//   same positive number at every position;
// - the output head is a tensor of its own (not the embeddings, tied as in the bench
//   models): a letter's row reads that dimension with weight PULL (less for later
//   letters), the rest of the row random as before; every other token's row reads it
//   with weight −PULL and nothing else.
//
// So every letter's logit gains about the same amount whatever the text, and the
// letters hold nearly all of the probability; their logits among themselves still
// come from the random weights, so an answer still depends on the text.

/** The dimension held constant, and its value in every token's embedding. */
const DIM = 1;
const CONSTANT = 1.0;
/**
 * The letters' weight on it in the output head: PULL for A, less by STEP for each
 * letter after it. The engine offers the first k letters of the alphabet for k
 * answers, so the letters after them must hold little: a trained model reads which
 * letters were offered, random weights cannot, and the step stands in for that.
 */
const PULL = 200;
const STEP = 40;

/** Letter tokens ("A" … "Z", alone and after SentencePiece's space mark), each to its place in the alphabet. */
export function letterTokens(tokens) {
  return new Map(tokens.flatMap((text, id) => (/^\u2581?[A-Z]$/.test(text) ? [[id, text.codePointAt(text.length - 1) - 65]] : [])));
}

/**
 * Rewrites `buf`, the whole of tensor `t` as f16 values (dims: inner first), for the
 * habit above; `toHalf` encodes a float. Tensors it does not concern are left as they are.
 */
export function answerInLetters(t, buf, letters, toHalf) {
  const [inner, rows] = t.dims;
  const set = (row, column, value) => buf.writeUInt16LE(value === 0 ? 0 : toHalf(value), 2 * (row * inner + column));
  if (t.name === 'token_embd.weight') {
    for (let row = 0; row < rows; row++) set(row, DIM, CONSTANT);
  } else if (/^blk\.\d+\.(attn_output|ffn_down)\.weight$/.test(t.name)) {
    for (let column = 0; column < inner; column++) set(DIM, column, 0);
  } else if (t.name === 'output.weight') {
    for (let row = 0; row < rows; row++) {
      if (letters.has(row)) set(row, DIM, PULL - STEP * letters.get(row));
      else for (let column = 0; column < inner; column++) set(row, column, column === DIM ? -PULL : 0);
    }
  }
}
