// What the local-engine rows share: the model they run and whether they can run it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './config.js';

/**
 * The GGUF file of the local rows (`BENCH_LOCAL_MODEL`, else the shared tiny model
 * beside the project), or why the row is skipped: no such file, or no node-llama-cpp.
 */
export async function localModel() {
  const modelPath = process.env.BENCH_LOCAL_MODEL ?? path.resolve(ROOT, '..', 'shared', 'models', 'llama-2-tiny-random.gguf');
  if (!existsSync(modelPath)) return { skipped: `no model at ${modelPath}; set BENCH_LOCAL_MODEL` };
  try {
    await import('node-llama-cpp');
  } catch (error) {
    return { skipped: `node-llama-cpp is not installed (${String(error.message).split('\n')[0]})` };
  }
  return { modelPath };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
