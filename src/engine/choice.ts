import { setting } from '../config/parse.js';
import { engineKind, type ENGINES } from '../config/schemas.js';
import { envValue, type Env } from '../config/variables.js';

export type EngineKind = (typeof ENGINES)[number];

/** Which engine runs, and why, in words a message can quote. */
export interface EngineChoice {
  kind: EngineKind;
  why: string;
}

/**
 * The one place that decides which engine the environment asks for; engineFromEnv
 * builds a provider's engine from it, startEngine the local one.
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
  if (envValue(env, 'OPENAI_BASE_URL') || envValue(env, 'OPENAI_API_KEY')) return { kind: 'openai', why: 'OPENAI_BASE_URL or OPENAI_API_KEY is set' };
  return { kind: 'local', why: 'no provider is configured' };
}
