import { createAnthropicEngine } from './anthropic.js';
import type { Engine } from './engine.js';
import { createOpenAIEngine, type OpenAIProbabilities } from './openai.js';
import { createSystemOneEngine } from './systemone.js';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_ENGINE_TIMEOUT_MS = 30_000;

type Env = Record<string, string | undefined>;

/**
 * The provider engine the environment configures, or null when it configures none
 * (or asks for `local`), in which case the caller falls back to the embedded engine.
 *
 * - `DECIDE_ENGINE=systemone`: `DECIDE_SYSTEMONE_URL` and `DECIDE_MODEL` required,
 *   `DECIDE_SYSTEMONE_API_KEY` optional.
 * - `DECIDE_ENGINE=openai`: `DECIDE_MODEL` required, `OPENAI_BASE_URL` (default
 *   api.openai.com/v1), `OPENAI_API_KEY` (required only for api.openai.com itself),
 *   `DECIDE_OPENAI_PROBABILITIES` `logprobs` (default) or `verbalized` (servers that
 *   return no logprobs).
 * - `DECIDE_ENGINE=anthropic`: `ANTHROPIC_API_KEY` and `DECIDE_MODEL` required,
 *   `ANTHROPIC_BASE_URL` (default api.anthropic.com). Only ever chosen explicitly: an
 *   Anthropic key in a developer's shell (for their coding tools) must not start
 *   paid calls on its own.
 * - unset: `DECIDE_SYSTEMONE_URL` → systemone, else `OPENAI_BASE_URL` / `OPENAI_API_KEY`
 *   → openai, else null. The decide-specific variable wins because an OpenAI key is
 *   often sitting in a developer's shell for other tools.
 * - `DECIDE_ENGINE_TIMEOUT_MS`: positive integer, default 30000.
 *
 * Blank values count as unset. A bad value throws an Error naming the variable.
 */
export function engineFromEnv(env: Env = process.env): Engine | null {
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const explicit = read('DECIDE_ENGINE')?.toLowerCase();
  const kind =
    explicit ??
    (read('DECIDE_SYSTEMONE_URL') ? 'systemone' : read('OPENAI_BASE_URL') || read('OPENAI_API_KEY') ? 'openai' : undefined);
  if (kind === undefined) return null;
  if (kind === 'local') return null;

  const why = explicit ? `DECIDE_ENGINE=${kind}` : kind === 'systemone' ? 'DECIDE_SYSTEMONE_URL is set' : 'OPENAI_BASE_URL or OPENAI_API_KEY is set';
  const model = () => {
    const value = read('DECIDE_MODEL');
    if (!value) throw new Error(`DECIDE_MODEL is required for the ${kind} engine (chosen because ${why}); set it to the provider's model name`);
    return value;
  };
  const timeoutMs = engineTimeoutFromEnv(env);

  switch (kind) {
    case 'systemone': {
      const url = read('DECIDE_SYSTEMONE_URL');
      if (!url) throw new Error('DECIDE_SYSTEMONE_URL is required when DECIDE_ENGINE=systemone (the server root, e.g. http://localhost:8000)');
      return createSystemOneEngine({
        baseUrl: httpUrl('DECIDE_SYSTEMONE_URL', url),
        apiKey: read('DECIDE_SYSTEMONE_API_KEY'),
        model: model(),
        timeoutMs,
      });
    }
    case 'openai': {
      const baseUrl = httpUrl('OPENAI_BASE_URL', read('OPENAI_BASE_URL') ?? DEFAULT_OPENAI_BASE_URL);
      const apiKey = read('OPENAI_API_KEY');
      if (!apiKey && new URL(baseUrl).hostname === 'api.openai.com') {
        throw new Error('OPENAI_API_KEY is required for api.openai.com (set OPENAI_BASE_URL for a local server that needs no key)');
      }
      const probabilities = openaiProbabilities(read('DECIDE_OPENAI_PROBABILITIES'));
      return createOpenAIEngine({ baseUrl, apiKey, model: model(), timeoutMs, probabilities });
    }
    case 'anthropic': {
      const apiKey = read('ANTHROPIC_API_KEY');
      if (!apiKey) throw new Error('ANTHROPIC_API_KEY is required when DECIDE_ENGINE=anthropic');
      const baseUrl = httpUrl('ANTHROPIC_BASE_URL', read('ANTHROPIC_BASE_URL') ?? DEFAULT_ANTHROPIC_BASE_URL);
      return createAnthropicEngine({ baseUrl, apiKey, model: model(), timeoutMs });
    }
    default:
      throw new Error(`DECIDE_ENGINE must be one of systemone, openai, anthropic or local; got "${explicit}"`);
  }
}

/** The deadline of one decision, and of each engine call within it. */
export function engineTimeoutFromEnv(env: Env = process.env): number {
  const raw = env.DECIDE_ENGINE_TIMEOUT_MS?.trim();
  if (!raw) return DEFAULT_ENGINE_TIMEOUT_MS;
  const ms = Number(raw);
  // setTimeout's ceiling; beyond it Node fires at once.
  if (!/^\d+$/.test(raw) || ms < 1 || ms > 2_147_483_647) {
    throw new Error(`DECIDE_ENGINE_TIMEOUT_MS must be a positive whole number of milliseconds; got "${raw}"`);
  }
  return ms;
}

function openaiProbabilities(value: string | undefined): OpenAIProbabilities {
  const mode = (value ?? 'logprobs').toLowerCase();
  if (mode === 'logprobs' || mode === 'verbalized') return mode;
  throw new Error(`DECIDE_OPENAI_PROBABILITIES must be logprobs or verbalized; got "${value}"`);
}

function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an http(s) URL; got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be an http(s) URL; got "${value}"`);
  return value.replace(/\/+$/, '');
}
