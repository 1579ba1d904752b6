import { describe, expect, it } from 'vitest';
import { chooseEngine, engineSettings } from '../../src/config/engine.js';

describe('chooseEngine', () => {
  it('DECIDE_ENGINE wins over whatever else is set, in any case', () => {
    expect(chooseEngine({ DECIDE_ENGINE: 'Local', DECIDE_SYSTEMONE_URL: 'http://h:1', OPENAI_API_KEY: 'k' })).toEqual({
      kind: 'local',
      why: 'DECIDE_ENGINE=local',
    });
  });

  it('unset: System One before OpenAI, and an Anthropic key alone chooses nothing', () => {
    expect(chooseEngine({ DECIDE_SYSTEMONE_URL: 'http://h:1', OPENAI_API_KEY: 'k' }).kind).toBe('systemone');
    expect(chooseEngine({ OPENAI_BASE_URL: 'http://h:1/v1' })).toEqual({ kind: 'openai', why: 'OPENAI_BASE_URL or OPENAI_API_KEY is set' });
    expect(chooseEngine({ ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: ' ' }).kind).toBe('local');
  });

  it('an unknown engine: an Error naming DECIDE_ENGINE and the value', () => {
    expect(() => chooseEngine({ DECIDE_ENGINE: 'gemini' })).toThrow(
      'DECIDE_ENGINE must be one of systemone, openai, anthropic or local; got "gemini"',
    );
  });
});

describe.runIf(process.platform === 'linux')("the local engine's settings", () => {
  it('keeps the default model in the cache folder the given environment names: XDG_CACHE_HOME, else HOME/.cache', () => {
    expect(engineSettings({ XDG_CACHE_HOME: '/var/cache/me', HOME: '/home/me' })).toEqual({
      kind: 'local',
      modelPath: undefined,
      defaultModel: { mirror: undefined, cacheDir: '/var/cache/me' },
    });
    expect(engineSettings({ HOME: '/home/me', DECIDE_DEFAULT_MODEL_URL: 'http://mirror.lan/m.gguf', DECIDE_MODEL: ' ' })).toEqual({
      kind: 'local',
      modelPath: undefined,
      defaultModel: { mirror: 'http://mirror.lan/m.gguf', cacheDir: '/home/me/.cache' },
    });
    expect(engineSettings({ DECIDE_MODEL: '/models/m.gguf', HOME: '/home/me' })).toMatchObject({
      kind: 'local',
      modelPath: '/models/m.gguf',
    });
  });
});
