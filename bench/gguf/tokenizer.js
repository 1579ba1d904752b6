// The generated models' tokenizer: the shared tiny model's (a llama SentencePiece
// vocabulary of 32,000 tokens), copied entry by entry, and padded to the vocabulary
// size of the model being imitated with tokens the tokenizer never produces. The
// padding gives the output head, the logits and every per-vocabulary buffer of the
// runtime the size they have with the real model.
import { readFileSync } from 'node:fs';
import { entry, readArray, readMetadata } from './format.js';

/** llama.cpp's token type for a token kept out of tokenisation. */
const UNUSED = 5;

/** The tokenizer entries of `file`, padded to `vocab` tokens when given; and the vocabulary size. */
export function tokenizerMetadata(file, vocab) {
  const entries = readMetadata(readFileSync(file)).filter((m) => m.key.startsWith('tokenizer.'));
  const find = (key) => {
    const found = entries.find((m) => m.key === key);
    if (!found) throw new Error(`${file} has no ${key}`);
    return found;
  };
  const tokens = readArray(find('tokenizer.ggml.tokens').raw);
  const have = tokens.items.length;
  if (!vocab || vocab === have) return { entries, vocab: have };
  if (vocab < have) throw new Error(`cannot shrink a ${have}-token vocabulary to ${vocab}`);

  const padded = { 'tokenizer.ggml.tokens': (i) => `<decide-bench-unused-${i}>`, 'tokenizer.ggml.scores': () => 0, 'tokenizer.ggml.token_type': () => UNUSED };
  return {
    vocab,
    entries: entries.map((m) => {
      const pad = padded[m.key];
      if (!pad) return m;
      const { itemType, items } = readArray(m.raw);
      for (let i = have; i < vocab; i++) items.push(pad(i));
      return entry(m.key, 'array', { itemType, items });
    }),
  };
}
