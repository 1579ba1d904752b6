import { homedir } from 'node:os';
import { join } from 'node:path';
import { httpUrl, setting } from './parse.js';
import { engineKind, engineTimeoutMs, type ENGINES, openaiProbabilities, threads } from './schemas.js';
import {
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ENGINE_TIMEOUT_MS,
  DEFAULT_OPENAI_BASE_URL,
  envValue,
  type Env,
  type VariableName,
} from './variables.js';

export type EngineKind = (typeof ENGINES)[number];

/** Which engine runs, and why, in words a message can quote. */
export interface EngineChoice {
  kind: EngineKind;
  why: string;
}

/**
 * The one place that decides which engine the environment asks for; engineSettings
 * reads the rest of its configuration.
 *
 * - `DECIDE_ENGINE` set: that engine, whatever else is set. `anthropic` is only ever
 *   chosen this way: an Anthropic key in a developer's shell (for their coding tools)
 *   must not start paid calls on its own.
 * - else `DECIDE_SYSTEMONE_URL` → systemone, else `OPENAI_BASE_URL` / `OPENAI_API_KEY`
 *   → openai. The decide-specific variable wins because an OpenAI key is often
 *   sitting in a developer's shell for other tools.
 * - else the embedded local engine.
 *
 * A bad `DECIDE_ENGINE` throws an Error naming it.
 */
export function chooseEngine(env: Env): EngineChoice {
  const explicit = setting(env, 'DECIDE_ENGINE', engineKind);
  if (explicit) return { kind: explicit, why: `DECIDE_ENGINE=${explicit}` };
  if (envValue(env, 'DECIDE_SYSTEMONE_URL')) return { kind: 'systemone', why: 'DECIDE_SYSTEMONE_URL is set' };
  if (envValue(env, 'OPENAI_BASE_URL') || envValue(env, 'OPENAI_API_KEY'))
    return { kind: 'openai', why: 'OPENAI_BASE_URL or OPENAI_API_KEY is set' };
  return { kind: 'local', why: 'no provider is configured' };
}

/** A provider's engine as configured: what engine/provider.ts builds it from. */
export type ProviderSettings =
  | { kind: 'systemone'; baseUrl: string; apiKey?: string; model: string }
  | { kind: 'openai'; baseUrl: string; apiKey?: string; model: string; probabilities: 'logprobs' | 'verbalized' }
  | { kind: 'anthropic'; baseUrl: string; apiKey: string; model: string };

/** The embedded engine as configured; its threads are read by localSettings, only when it runs. */
export interface LocalSettings {
  kind: 'local';
  /** `--model` / `DECIDE_MODEL`: a GGUF file; absent, the default model. */
  modelPath?: string;
  /** Where the default model is fetched from, and the per-user cache it is kept in. */
  defaultModel: { mirror?: string; cacheDir: string };
}

/**
 * The engine the environment configures (chooseEngine says which), its variables
 * read and checked:
 *
 * - systemone: `DECIDE_SYSTEMONE_URL` and `DECIDE_MODEL` required,
 *   `DECIDE_SYSTEMONE_API_KEY` optional.
 * - openai: `DECIDE_MODEL` required, `OPENAI_BASE_URL` (default api.openai.com/v1),
 *   `OPENAI_API_KEY` (required only for api.openai.com itself),
 *   `DECIDE_OPENAI_PROBABILITIES` `logprobs` (default) or `verbalized` (servers that
 *   return no logprobs).
 * - anthropic: `ANTHROPIC_API_KEY` and `DECIDE_MODEL` required, `ANTHROPIC_BASE_URL`
 *   (default api.anthropic.com).
 * - local: `DECIDE_MODEL` (a file) optional, `DECIDE_DEFAULT_MODEL_URL` a mirror of
 *   the default model.
 *
 * Blank values count as unset. A bad value throws an Error naming the variable.
 */
export function engineSettings(env: Env): ProviderSettings | LocalSettings {
  const { kind, why } = chooseEngine(env);
  const read = (name: VariableName) => envValue(env, name);
  const model = () => {
    const value = read('DECIDE_MODEL');
    if (!value)
      throw new Error(`DECIDE_MODEL is required for the ${kind} engine (chosen because ${why}); set it to the provider's model name`);
    return value;
  };
  switch (kind) {
    case 'local':
      return { kind, modelPath: read('DECIDE_MODEL'), defaultModel: { mirror: read('DECIDE_DEFAULT_MODEL_URL'), cacheDir: cacheDir(env) } };
    case 'systemone': {
      const url = read('DECIDE_SYSTEMONE_URL');
      if (!url)
        throw new Error(
          'DECIDE_SYSTEMONE_URL is required when DECIDE_ENGINE=systemone (the server root, e.g. http://localhost:8000; a trailing /v1 is taken off)',
        );
      return {
        kind,
        // The server root: a URL written as OPENAI_BASE_URL is, ending in /v1 (or /v1/systemone), means the same server.
        baseUrl: baseUrl(env, 'DECIDE_SYSTEMONE_URL', url).replace(/\/v1(\/systemone)?$/, ''),
        apiKey: read('DECIDE_SYSTEMONE_API_KEY'),
        model: model(),
      };
    }
    case 'openai': {
      const url = baseUrl(env, 'OPENAI_BASE_URL', DEFAULT_OPENAI_BASE_URL);
      const apiKey = read('OPENAI_API_KEY');
      if (!apiKey && new URL(url).hostname === 'api.openai.com') {
        throw new Error('OPENAI_API_KEY is required for api.openai.com (set OPENAI_BASE_URL for a local server that needs no key)');
      }
      const probabilities = setting(env, 'DECIDE_OPENAI_PROBABILITIES', openaiProbabilities) ?? 'logprobs';
      return { kind, baseUrl: url, apiKey, model: model(), probabilities };
    }
    case 'anthropic': {
      const apiKey = read('ANTHROPIC_API_KEY');
      if (!apiKey) throw new Error('ANTHROPIC_API_KEY is required when DECIDE_ENGINE=anthropic');
      return { kind, baseUrl: baseUrl(env, 'ANTHROPIC_BASE_URL', DEFAULT_ANTHROPIC_BASE_URL), apiKey, model: model() };
    }
  }
}

/** `DECIDE_ENGINE_TIMEOUT_MS`: the deadline of one decision, and of each engine call within it. */
export function engineTimeout(env: Env): number {
  return setting(env, 'DECIDE_ENGINE_TIMEOUT_MS', engineTimeoutMs) ?? DEFAULT_ENGINE_TIMEOUT_MS;
}

/**
 * `DECIDE_THREADS` (which `--threads` sets): a whole number from 1 to MAX_THREADS, or
 * undefined: the local engine's own default (engine/local/threads.ts). A bad value
 * throws an Error naming the variable.
 */
export function localThreads(env: Env): number | undefined {
  return setting(env, 'DECIDE_THREADS', threads);
}

/** A provider's base URL: the variable (checked), else `fallback`; without trailing slashes, as the engines join paths to it. */
function baseUrl(env: Env, name: VariableName, fallback: string): string {
  return (setting(env, name, httpUrl) ?? fallback).replace(/\/+$/, '');
}

/**
 * The platform's per-user cache folder, where downloaded models live: from `env`
 * (XDG_CACHE_HOME, HOME, LOCALAPPDATA), the user's home folder as the system knows it
 * where HOME is unset.
 */
function cacheDir(env: Env): string {
  if (env.XDG_CACHE_HOME?.trim()) return env.XDG_CACHE_HOME.trim();
  const home = env.HOME?.trim() || homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches');
  if (process.platform === 'win32') return env.LOCALAPPDATA?.trim() || join(home, 'AppData', 'Local');
  return join(home, '.cache');
}
