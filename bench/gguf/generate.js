#!/usr/bin/env node
// Writes GGUF models of realistic size for the bench, without downloading anything:
// the shapes of Qwen2.5 0.5B and 1.5B (shapes.js), random quantised weights
// (blocks.js), and a vocabulary of its own (tokenizer.js). At its `test` size it is
// also the tiny model every local-engine test runs on (test/support/tiny-model.ts).
//
//   node bench/gguf/generate.js [0.5b] [1.5b] [test] [--quant q4_0|q8_0|f16] [--dir DIR]
//
// (`test` is f16 unless --quant says otherwise, the others Q4_0: shapes.js.)
//
// Files go to bench/.cache/models/ (never committed) and are reused when present; a
// file is written under a temporary name and renamed into place once complete, so an
// interrupted run leaves nothing that looks finished.
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fillBlocks, random, toHalf } from './blocks.js';
import { answerInLetters, letterTokens } from './letters.js';
import { encodeHeader, entry, TENSOR_TYPE, tensorBytes } from './format.js';
import { architectureMetadata, parameters, SHAPES, tensors } from './shapes.js';
import { tokenizerMetadata } from './tokenizer.js';

const BENCH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CACHE = path.join(BENCH, '.cache', 'models');
/** Part of every file name: a change to what the generator writes gets new files, not stale ones. */
const GENERATOR_VERSION = 4;
const SEED = 20_260_728;
/** Tensor data is made and written this many bytes at a time (rounded to whole blocks). */
const CHUNK_BYTES = 8 << 20;

/** A size's own weight type (`test`: f16), else Q4_0. */
const defaultQuant = (size) => SHAPES[size]?.quant ?? 'q4_0';

export const modelPath = (size, quant = defaultQuant(size), dir = CACHE) =>
  path.join(dir, `decide-bench-${size}-${quant}-v${GENERATOR_VERSION}.gguf`);

/**
 * The model of `size` ('0.5b', '1.5b', 'test'), written if it is not in `dir` yet.
 * Returns its path, parameter count, bytes on disk and whether it was written now.
 */
export function ensureModel(size, { quant = defaultQuant(size), dir = CACHE, progress = () => {} } = {}) {
  const shape = SHAPES[size];
  if (!shape) throw new Error(`unknown size "${size}"; one of ${Object.keys(SHAPES).join(', ')}`);
  if (!TENSOR_TYPE[quant] || quant === 'f32') throw new Error(`unknown quantisation "${quant}"; q4_0, q8_0 or f16`);
  const file = modelPath(size, quant, dir);
  const tokenizer = tokenizerMetadata(shape.vocab);
  const list = tensors(shape, tokenizer.vocab, quant).map((t) => ({ ...t, typeName: t.type, type: TENSOR_TYPE[t.type] }));
  const about = { path: file, parameters: parameters(list) };
  if (existsSync(file)) return { ...about, bytes: statSync(file).size, generated: false };

  const metadata = [
    entry('general.architecture', 'string', 'llama'),
    entry('general.name', 'string', `decide bench ${size} (random weights, ${quant})`),
    entry('general.file_type', 'u32', TENSOR_TYPE[quant].fileType),
    ...architectureMetadata(shape, entry),
    ...tokenizer.entries,
  ];
  const { header, offsets, dataBytes } = encodeHeader(metadata, list);
  mkdirSync(dir, { recursive: true });
  const part = `${file}.${process.pid}.part`;
  const fd = openSync(part, 'w');
  try {
    writeSync(fd, header);
    const next = random(SEED);
    const letters = shape.letters ? letterTokens(tokenizer.tokens) : null;
    let written = 0;
    for (const [i, t] of list.entries()) {
      const adjust = letters && ((piece) => answerInLetters(t, piece, letters, toHalf));
      written += writeTensor(fd, t, next, offsets[i] - written, shape.weightStd, adjust);
      progress(written, dataBytes);
    }
    writeSync(fd, Buffer.alloc(dataBytes - written));
  } catch (error) {
    closeSync(fd);
    rmSync(part, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(part, file);
  return { ...about, bytes: statSync(file).size, generated: true };
}

/**
 * Writes `padding` zero bytes (to the tensor's aligned offset), then its data; returns
 * the bytes written. `adjust`, when given, rewrites an f16 tensor's data, which must
 * then fit one chunk (the tiny model's do).
 */
function writeTensor(fd, t, next, padding, std, adjust) {
  if (padding > 0) writeSync(fd, Buffer.alloc(padding));
  const total = tensorBytes(t.type, t.dims);
  const chunk = Buffer.alloc(Math.min(total, Math.floor(CHUNK_BYTES / t.type.blockBytes) * t.type.blockBytes));
  for (let done = 0; done < total; done += chunk.length) {
    const piece = chunk.subarray(0, Math.min(chunk.length, total - done));
    fillBlocks(piece, t.typeName, t.type, next, std);
    if (adjust && t.typeName === 'f16') {
      if (piece.length !== total) throw new Error(`${t.name} does not fit one chunk, so it cannot be adjusted`);
      adjust(piece);
    }
    writeSync(fd, piece);
  }
  return padding + total;
}

async function main(args) {
  let quant;
  let dir = CACHE;
  const sizes = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--quant') quant = args[++i];
    else if (args[i] === '--dir') dir = path.resolve(args[++i]);
    else sizes.push(args[i]);
  }
  for (const size of sizes.length ? sizes : ['0.5b', '1.5b']) {
    const started = Date.now();
    const model = ensureModel(size, { quant, dir });
    const what = model.generated ? `written in ${((Date.now() - started) / 1000).toFixed(1)} s` : 'already there';
    const params = model.parameters >= 1e8 ? `${(model.parameters / 1e9).toFixed(2)} B` : `${(model.parameters / 1e6).toFixed(1)} M`;
    process.stdout.write(`${model.path}: ${params} parameters, ${(model.bytes / 1e6).toFixed(1)} MB, ${what}\n`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error) => {
    process.stderr.write(`generate: ${error.message}\n`);
    process.exit(1);
  });
}
