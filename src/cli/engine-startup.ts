import { existsSync } from 'node:fs';
import { envValue, type Env } from '../config/variables.js';
import type { Engine } from '../engine/engine.js';
import { engineFromEnv } from '../engine/from-env.js';
import { DEFAULT_MODEL, defaultModelSource } from '../engine/local/default-model.js';
import { fetchModelFile } from '../engine/local/download.js';
import { createLocalEngine, describeSettings } from '../engine/local/local.js';
import { LocalEngineError, loadRuntime } from '../engine/local/runtime.js';
import { threadsFromEnv } from '../engine/local/threads.js';
import { localModelName } from './engine-identity.js';
import { EXIT, Failure } from './exit-codes.js';
import { progressPrinter } from './progress.js';

/**
 * The engine `decide serve` and `decide eval` run on, as chooseEngine
 * (engine/choice.ts) picks it: the provider's, else the embedded local engine on
 * `--model`/`DECIDE_MODEL`, else on the default model, fetched once into the user's
 * cache, on `--threads`/`DECIDE_THREADS` threads. Every failure is a Failure whose sentence says what to do; a local
 * engine that starts says on one line how it runs.
 */
export async function startEngine(env: Env): Promise<Engine> {
  return (await engineStarter(env))();
}

/**
 * What startEngine does, in two steps: the configuration read now (a provider's
 * engine made, which is cheap, or the local engine's settings checked), every mistake
 * a Failure; the returned start does the heavy part, if any (node-llama-cpp, the
 * model's download, its loading). `decide serve` binds its port between the two.
 */
export async function engineStarter(env: Env): Promise<() => Promise<Engine>> {
  let remote: Engine | null;
  try {
    remote = engineFromEnv(env);
  } catch (error) {
    throw new Failure((error as Error).message, EXIT.config);
  }
  if (remote) return async () => remote;

  let threads: number;
  try {
    threads = threadsFromEnv(env);
  } catch (error) {
    throw new Failure((error as Error).message, EXIT.config);
  }
  return () => startLocalEngine(env, threads);
}

async function startLocalEngine(env: Env, threads: number): Promise<Engine> {
  // The runtime first: without it no model is of use, least of all a 1 GB download.
  try {
    await loadRuntime();
  } catch (error) {
    if (error instanceof LocalEngineError) throw new Failure(`local engine: ${error.message}`, EXIT.config);
    throw error;
  }
  const explicit = envValue(env, 'DECIDE_MODEL');
  const modelPath = explicit || (await defaultModel(env));
  try {
    const engine = await createLocalEngine({ modelPath, model: localModelName(explicit), threads });
    process.stderr.write(`decide: local engine: ${describeSettings(engine.settings)}\n`);
    return Object.assign(engine, { endpoint: modelPath });
  } catch (error) {
    if (error instanceof LocalEngineError) {
      const hint = explicit ? ' (--model or DECIDE_MODEL is a path to a .gguf file for the local engine)' : '';
      throw new Failure(`local engine: ${error.message}${hint}`, error.reason === 'runtime' ? EXIT.config : EXIT.notFound);
    }
    throw error;
  }
}

/** The environment an engine starts from, with the engine's flags (`--model`, `--threads`) over their variables. */
export function engineEnv(flags: { model?: string; threads?: number }, env: Env = process.env): Env {
  return {
    ...env,
    ...(flags.model === undefined ? {} : { DECIDE_MODEL: flags.model }),
    ...(flags.threads === undefined ? {} : { DECIDE_THREADS: String(flags.threads) }),
  };
}

async function defaultModel(env: Env): Promise<string> {
  const source = defaultModelSource(env);
  if (existsSync(source.path)) return source.path;
  const size = `${(DEFAULT_MODEL.bytes / 1e9).toFixed(1)} GB`;
  process.stderr.write(
    `decide: no engine configured: using the local engine with ${DEFAULT_MODEL.name} (${size}), fetched once into ${source.path}\n`,
  );
  try {
    await fetchModelFile(source, source.path, progressPrinter(process.stderr), env);
  } catch (error) {
    throw new Failure(
      `cannot fetch the default model from ${source.url}: ${(error as Error).message}.\n` +
        `  Download that file yourself (${DEFAULT_MODEL.bytes} bytes, SHA-256 ${DEFAULT_MODEL.sha256}) and put it at\n` +
        `  ${source.path}\n` +
        `  or start with --model PATH.gguf, or configure a remote engine (see the README). A partial download resumes on the next start.`,
      EXIT.unavailable,
    );
  }
  return source.path;
}
