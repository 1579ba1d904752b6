import { describe, expect, it } from 'vitest';
import { chooseEngine } from '../../src/config/engine.js';

describe('chooseEngine', () => {
  it('DECIDE_ENGINE wins over whatever else is set, in any case', () => {
    expect(chooseEngine({ DECIDE_ENGINE: 'Local', DECIDE_SYSTEMONE_URL: 'http://h:1', OPENAI_API_KEY: 'k' })).toEqual({ kind: 'local', why: 'DECIDE_ENGINE=local' });
  });

  it('unset: System One before OpenAI, and an Anthropic key alone chooses nothing', () => {
    expect(chooseEngine({ DECIDE_SYSTEMONE_URL: 'http://h:1', OPENAI_API_KEY: 'k' }).kind).toBe('systemone');
    expect(chooseEngine({ OPENAI_BASE_URL: 'http://h:1/v1' })).toEqual({ kind: 'openai', why: 'OPENAI_BASE_URL or OPENAI_API_KEY is set' });
    expect(chooseEngine({ ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: ' ' }).kind).toBe('local');
  });

  it('an unknown engine: an Error naming DECIDE_ENGINE and the value', () => {
    expect(() => chooseEngine({ DECIDE_ENGINE: 'gemini' })).toThrow('DECIDE_ENGINE must be one of systemone, openai, anthropic or local; got "gemini"');
  });
});
