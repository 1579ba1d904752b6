import { basename } from 'node:path';
import { envValue, type Env } from '../config/variables.js';
import { chooseEngine } from '../engine/choice.js';
import { DEFAULT_MODEL } from '../engine/local/default-model.js';
import { EXIT, Failure } from './exit-codes.js';

/**
 * The engine and model a configuration names, as the engine would report them once
 * started, read from the configuration alone: the ledger keeps temperatures under
 * these names, and removing them must not load (or download) a model or reach a
 * provider. A provider's engine is named by its kind and reports the configured
 * model; the local engine reports its model file's name without `.gguf`, or the
 * default model's name (startEngine names it with `localModelName` too).
 */
export function engineIdentity(env: Env): { name: string; model: string } {
  let kind;
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

/** The name the local engine reports for `--model` / `DECIDE_MODEL` (a path), or for the default model when none is given. */
export function localModelName(modelPath: string | undefined): string {
  return modelPath ? basename(modelPath, '.gguf') : DEFAULT_MODEL.name;
}
