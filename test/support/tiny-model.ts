import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureModel, modelPath } from '../../bench/gguf/generate.js';

/**
 * The tests' tiny model: a GGUF of a few megabytes with random weights and a
 * vocabulary of its own, written by the bench's generator (bench/gguf/generate.js,
 * size `test`) so that a clone runs every local-engine test with nothing beside it.
 * It answers in milliseconds, and at random: tests on it check plumbing, never
 * answer quality.
 *
 * Kept in node_modules/.cache, so it lives as long as the installed packages and
 * never shows up in git; the file name carries the generator's version, so a
 * change to what the generator writes gets a new file rather than a stale one.
 */
const CACHE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/.cache/decide/models');

export const TINY_MODEL = modelPath('test', undefined, CACHE);

/** The model name decisions report: the file's name, as for any `--model PATH.gguf`. */
export const TINY_MODEL_NAME = path.basename(TINY_MODEL, '.gguf');

/**
 * Writes the model if it is not there yet (vitest's globalSetup calls this once per
 * run); written under a temporary name and renamed, so two runs at once cannot see
 * half a file.
 */
export function ensureTinyModel(): string {
  return ensureModel('test', { dir: CACHE }).path;
}
