// What the local-engine rows share: the model they run and whether they can run it.
import { existsSync } from 'node:fs';
import { ensureModel } from '../gguf/generate.js';
import { SHAPES } from '../gguf/shapes.js';
import { tinyModel } from './config.js';

/**
 * The GGUF file of the local rows, or why the row is skipped: no such file, or no
 * node-llama-cpp. `BENCH_LOCAL_MODEL` is a file, or a size gguf/generate.js writes
 * (`0.5b`, `1.5b`: written into bench/.cache/models/ if absent); else the tiny
 * model (config.js).
 */
export async function localModel({ progress = () => {} } = {}) {
  try {
    await import('node-llama-cpp');
  } catch (error) {
    return { skipped: `node-llama-cpp is not installed (${String(error.message).split('\n')[0]})` };
  }
  const wanted = process.env.BENCH_LOCAL_MODEL;
  if (wanted && SHAPES[wanted]) {
    let told = false;
    const tell = () => {
      if (told) return;
      told = true;
      progress(`writing the ${wanted} model into bench/.cache/models/ (once)`);
    };
    return { modelPath: ensureModel(wanted, { progress: tell }).path };
  }
  const modelPath = wanted ?? tinyModel();
  if (!existsSync(modelPath)) return { skipped: `no model at ${modelPath}; set BENCH_LOCAL_MODEL` };
  return { modelPath };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
