import { createAnthropicEngine } from './anthropic.js';
import type { Engine } from './engine.js';
import { createOpenAIEngine, type OpenAIProbabilities } from './openai.js';
import { createSystemOneEngine } from './systemone.js';
import { chooseEngine } from './choice.js';
import { httpUrl, setting } from '../config/parse.js';
import { engineTimeoutMs, openaiProbabilities } from '../config/schemas.js';
import {
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ENGINE_TIMEOUT_MS,
  DEFAULT_OPENAI_BASE_URL,
  envValue,
  type Env,
  type VariableName,
} from '../config/variables.js';

export { DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_ENGINE_TIMEOUT_MS, DEFAULT_OPENAI_BASE_URL };

/**
 * The provider engine the environment configures (chooseEngine says which), or null
 * when it chooses the local one, which the caller starts.
 *
 * - systemone: `DECIDE_SYSTEMONE_URL` and `DECIDE_MODEL` required,
 *   `DECIDE_SYSTEMONE_API_KEY` optional.
 * - openai: `DECIDE_MODEL` required, `OPENAI_BASE_URL` (default api.openai.com/v1),
 *   `OPENAI_API_KEY` (required only for api.openai.com itself),
 *   `DECIDE_OPENAI_PROBABILITIES` `logprobs` (default) or `verbalized` (servers that
 *   return no logprobs).
 * - anthropic: `ANTHROPIC_API_KEY` and `DECIDE_MODEL` required, `ANTHROPIC_BASE_URL`
 *   (default api.anthropic.com).
 * - all: `DECIDE_ENGINE_TIMEOUT_MS`, positive integer, default 30000.
 *
 * Blank values count as unset. A bad value throws an Error naming the variable.
 */
export function engineFromEnv(env: Env = process.env): Engine | null {
  const { kind, why } = chooseEngine(env);
  if (kind === 'local') return null;
  const read = (name: VariableName) => envValue(env, name);
  const model = () => {
    const value = read('DECIDE_MODEL');
    if (!value) throw new Error(`DECIDE_MODEL is required for the ${kind} engine (chosen because ${why}); set it to the provider's model name`);
    return value;
  };
  const timeoutMs = engineTimeoutFromEnv(env);

  switch (kind) {
    case 'systemone': {
      const url = read('DECIDE_SYSTEMONE_URL');
      if (!url) throw new Error('DECIDE_SYSTEMONE_URL is required when DECIDE_ENGINE=systemone (the server root, e.g. http://localhost:8000; a trailing /v1 is taken off)');
      return createSystemOneEngine({
        // The server root: a URL written as OPENAI_BASE_URL is, ending in /v1 (or /v1/systemone), means the same server.
        baseUrl: baseUrl(env, 'DECIDE_SYSTEMONE_URL', url).replace(/\/v1(\/systemone)?$/, ''),
        apiKey: read('DECIDE_SYSTEMONE_API_KEY'),
        model: model(),
        timeoutMs,
        env,
      });
    }
    case 'openai': {
      const url = baseUrl(env, 'OPENAI_BASE_URL', DEFAULT_OPENAI_BASE_URL);
      const apiKey = read('OPENAI_API_KEY');
      if (!apiKey && new URL(url).hostname === 'api.openai.com') {
        throw new Error('OPENAI_API_KEY is required for api.openai.com (set OPENAI_BASE_URL for a local server that needs no key)');
      }
      const probabilities: OpenAIProbabilities = setting(env, 'DECIDE_OPENAI_PROBABILITIES', openaiProbabilities) ?? 'logprobs';
      return createOpenAIEngine({ baseUrl: url, apiKey, model: model(), timeoutMs, probabilities, env });
    }
    case 'anthropic': {
      const apiKey = read('ANTHROPIC_API_KEY');
      if (!apiKey) throw new Error('ANTHROPIC_API_KEY is required when DECIDE_ENGINE=anthropic');
      const url = baseUrl(env, 'ANTHROPIC_BASE_URL', DEFAULT_ANTHROPIC_BASE_URL);
      return createAnthropicEngine({ baseUrl: url, apiKey, model: model(), timeoutMs, env });
    }
  }
}

/** The deadline of one decision, and of each engine call within it. */
export function engineTimeoutFromEnv(env: Env = process.env): number {
  return setting(env, 'DECIDE_ENGINE_TIMEOUT_MS', engineTimeoutMs) ?? DEFAULT_ENGINE_TIMEOUT_MS;
}

/** A provider's base URL: the variable (checked), else `fallback`; without trailing slashes, as the engines join paths to it. */
function baseUrl(env: Env, name: VariableName, fallback: string): string {
  return (setting(env, name, httpUrl) ?? fallback).replace(/\/+$/, '');
}
