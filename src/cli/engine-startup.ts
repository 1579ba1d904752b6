import { existsSync } from 'node:fs';
import { type EngineConfig, readEngineConfig } from '../config/config.js';
import type { LocalSettings } from '../config/engine.js';
import type { ProxySettings } from '../config/proxy.js';
import { shownUrl, withoutUrlSecrets } from '../config/shown-url.js';
import type { Env } from '../config/variables.js';
import type { Engine } from '../engine/engine.js';
import { DEFAULT_MODEL, defaultModelSource } from '../engine/local/default-model.js';
import { fetchModelFile } from '../engine/local/download.js';
import { createLocalEngine, describeSettings } from '../engine/local/local.js';
import { LocalEngineError, loadRuntime } from '../engine/local/runtime.js';
import { providerEngine } from '../engine/provider.js';
import { localModelName } from './engine-identity.js';
import { EXIT, Failure } from './exit-codes.js';
import { progressPrinter } from './progress.js';

/**
 * The engine `decide serve` and `decide eval` run on, as the configuration
 * (config/engine.ts) chooses it: the provider's, else the embedded local engine on
 * `--model`/`DECIDE_MODEL`, else on the default model, fetched once into the user's
 * cache, on `--threads`/`DECIDE_THREADS` threads. Every failure is a Failure whose sentence says what to do; a local
 * engine that starts says on one line how it runs.
 */
export async function startEngine(config: EngineConfig): Promise<Engine> {
  return engineStarter(config)();
}

/**
 * What startEngine does, in two steps: a provider's engine made now, which is cheap
 * (a proxy it cannot use is a Failure); the returned start does the heavy part, if
 * any (node-llama-cpp, the model's download, its loading). `decide serve` binds its
 * port between the two.
 */
export function engineStarter(config: EngineConfig): () => Promise<Engine> {
  const { settings, timeoutMs, proxy } = config;
  if (settings.kind === 'local') return () => startLocalEngine(settings, config.threads, proxy);
  let remote: Engine;
  try {
    remote = providerEngine(settings, { timeoutMs, proxy });
  } catch (error) {
    throw new Failure((error as Error).message, EXIT.config);
  }
  return async () => remote;
}

/**
 * The engine section of the configuration, from the flags (`--model`, `--threads`)
 * over their variables; a bad value is a Failure (exit 78) naming it.
 */
export function engineConfig(flags: { model?: string; threads?: number }, env: Env = process.env): EngineConfig {
  try {
    return readEngineConfig(engineEnv(flags, env));
  } catch (error) {
    throw new Failure((error as Error).message, EXIT.config);
  }
}

async function startLocalEngine(settings: LocalSettings, threads: number | undefined, proxy: ProxySettings): Promise<Engine> {
  // The runtime first: without it no model is of use, least of all a 1 GB download.
  try {
    await loadRuntime();
  } catch (error) {
    if (error instanceof LocalEngineError) throw new Failure(`local engine: ${error.message}`, EXIT.config);
    throw error;
  }
  const explicit = settings.modelPath;
  const modelPath = explicit || (await defaultModel(settings, proxy));
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

async function defaultModel(settings: LocalSettings, proxy: ProxySettings): Promise<string> {
  const source = defaultModelSource(settings.defaultModel);
  if (existsSync(source.path)) return source.path;
  const size = `${(DEFAULT_MODEL.bytes / 1e9).toFixed(1)} GB`;
  process.stderr.write(
    `decide: no engine configured: using the local engine with ${DEFAULT_MODEL.name} (${size}), fetched once into ${source.path}\n`,
  );
  try {
    await fetchModelFile(source, source.path, progressPrinter(process.stderr), proxy);
  } catch (error) {
    throw new Failure(
      `cannot fetch the default model from ${shownUrl(source.url)}: ${withoutUrlSecrets((error as Error).message, source.url)}.\n` +
        `  Download that file yourself (${DEFAULT_MODEL.bytes} bytes, SHA-256 ${DEFAULT_MODEL.sha256}) and put it at\n` +
        `  ${source.path}\n` +
        `  or start with --model PATH.gguf, or configure a remote engine (see the README). A partial download resumes on the next start.`,
      EXIT.unavailable,
    );
  }
  return source.path;
}
