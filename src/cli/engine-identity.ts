import { basename } from 'node:path';
import { envValue, type Env } from '../config/variables.js';
import { chooseEngine } from '../config/engine.js';
import { DEFAULT_MODEL } from '../engine/local/default-model.js';
import { EXIT, Failure } from './exit-codes.js';
import { modelFingerprint } from './model-fingerprint.js';

/**
 * The engine and model a configuration names, as the engine would report them once
 * started, read from the configuration alone: the ledger keeps temperatures under
 * these names, and removing them must not load (or download) a model or reach a
 * provider. A provider's engine is named by its kind and reports the configured
 * model; the local engine reports its model file's name without `.gguf`, or the
 * default model's name (startEngine names it with `localModelName` too).
 */
export function engineIdentity(env: Env): { name: string; model: string } {
  let kind: ReturnType<typeof chooseEngine>['kind'];
  try {
    kind = chooseEngine(env).kind;
  } catch (error) {
    throw new Failure((error as Error).message, EXIT.config);
  }
  const model = envValue(env, 'DECIDE_MODEL');
  if (kind === 'local') return { name: 'local', model: localModelName(model) };
  if (!model) throw new Failure(`DECIDE_MODEL is required for the ${kind} engine; set it to the provider's model name`, EXIT.config);
  return { name: kind, model };
}

/**
 * The model as the ledger keys its fitted temperatures: a provider's model by its
 * name; the local engine's by its name and a fingerprint of the file's content
 * (model-fingerprint.ts), `name@0123456789abcdef`, so a file swapped under the same
 * name is not served another file's fits. The default model's content is pinned by its
 * checksum, whose start stands for it. An unreadable file names the model alone.
 */
export function calibrationModel(env: Env, engine: { name: string; model: string }): string {
  if (engine.name !== 'local') return engine.model;
  const explicit = envValue(env, 'DECIDE_MODEL');
  if (!explicit) return `${engine.model}@${DEFAULT_MODEL.sha256.slice(0, 16)}`;
  try {
    return `${engine.model}@${modelFingerprint(explicit)}`;
  } catch {
    return engine.model;
  }
}

/** The name the local engine reports for `--model` / `DECIDE_MODEL` (a path), or for the default model when none is given. */
export function localModelName(modelPath: string | undefined): string {
  return modelPath ? basename(modelPath, '.gguf') : DEFAULT_MODEL.name;
}
