import { afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startOpenAIFake } from '../fakes/openai-fake.js';
import { startSystemOneFake } from '../fakes/systemone-fake.js';
import { scaled } from '../support/time.js';
import { failureOf, noDeadline, engineFromEnv } from './helpers.js';

const opened: Engine[] = [];
const made = (env: Record<string, string | undefined>) => {
  const engine = engineFromEnv(env);
  if (engine) opened.push(engine);
  return engine;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((e) => e.close?.()));
});

describe('engineFromEnv: choosing the engine', () => {
  it('returns null when no provider is configured', () => {
    expect(made({})).toBeNull();
    expect(made({ OPENAI_API_KEY: '   ', DECIDE_SYSTEMONE_URL: '' })).toBeNull();
  });

  it('leaves DECIDE_ENGINE=local to the embedded engine, even with provider variables set', () => {
    expect(made({ DECIDE_ENGINE: 'local', OPENAI_API_KEY: 'sk-x', DECIDE_MODEL: '/models/m.gguf' })).toBeNull();
  });

  it('builds the openai engine when asked, case-insensitively', () => {
    const engine = made({ DECIDE_ENGINE: ' OpenAI ', OPENAI_API_KEY: 'sk-x', DECIDE_MODEL: 'gpt-4o-mini' });
    expect(engine).toMatchObject({ name: 'openai', model: 'gpt-4o-mini' });
  });

  it('builds the systemone engine when asked', () => {
    const engine = made({ DECIDE_ENGINE: 'systemone', DECIDE_SYSTEMONE_URL: 'http://localhost:8000', DECIDE_MODEL: 'jev-latest' });
    expect(engine).toMatchObject({ name: 'systemone', model: 'jev-latest' });
  });

  it('builds the anthropic engine when asked, and never infers it from ANTHROPIC_API_KEY alone', () => {
    expect(made({ DECIDE_ENGINE: 'Anthropic', ANTHROPIC_API_KEY: 'sk-ant-x', DECIDE_MODEL: 'claude-x' })).toMatchObject({
      name: 'anthropic',
      model: 'claude-x',
    });
    expect(made({ ANTHROPIC_API_KEY: 'sk-ant-x', DECIDE_MODEL: 'claude-x' })).toBeNull();
    expect(made({ ANTHROPIC_API_KEY: 'sk-ant-x', OPENAI_BASE_URL: 'http://localhost:8080/v1', DECIDE_MODEL: 'm' })?.name).toBe('openai');
  });

  it('infers openai from OPENAI_BASE_URL or OPENAI_API_KEY', () => {
    expect(made({ OPENAI_BASE_URL: 'http://localhost:8080/v1', DECIDE_MODEL: 'm' })?.name).toBe('openai');
    expect(made({ OPENAI_API_KEY: 'sk-x', DECIDE_MODEL: 'm' })?.name).toBe('openai');
  });

  it('infers systemone from DECIDE_SYSTEMONE_URL, which wins over OPENAI_* variables', () => {
    expect(made({ DECIDE_SYSTEMONE_URL: 'http://localhost:8000', DECIDE_MODEL: 'm' })?.name).toBe('systemone');
    expect(made({ DECIDE_SYSTEMONE_URL: 'http://localhost:8000', OPENAI_API_KEY: 'sk-x', DECIDE_MODEL: 'm' })?.name).toBe('systemone');
  });
});

describe('engineFromEnv: bad values name their variable', () => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['an unknown engine', { DECIDE_ENGINE: 'claude', DECIDE_MODEL: 'm' }, /DECIDE_ENGINE.*anthropic.*"claude"/],
    ['anthropic without a key', { DECIDE_ENGINE: 'anthropic', DECIDE_MODEL: 'm' }, /ANTHROPIC_API_KEY is required/],
    [
      'anthropic without a model',
      { DECIDE_ENGINE: 'anthropic', ANTHROPIC_API_KEY: 'k' },
      /DECIDE_MODEL is required for the anthropic engine/,
    ],
    [
      'an anthropic base URL that is not a URL',
      { DECIDE_ENGINE: 'anthropic', ANTHROPIC_API_KEY: 'k', DECIDE_MODEL: 'm', ANTHROPIC_BASE_URL: 'api.anthropic.com' },
      /ANTHROPIC_BASE_URL must be an http\(s\) URL/,
    ],
    [
      'an unknown way to read probabilities',
      { OPENAI_API_KEY: 'k', DECIDE_MODEL: 'm', DECIDE_OPENAI_PROBABILITIES: 'json' },
      /DECIDE_OPENAI_PROBABILITIES must be logprobs or verbalized; got "json"/,
    ],
    ['openai without a model', { DECIDE_ENGINE: 'openai', OPENAI_API_KEY: 'sk-x' }, /DECIDE_MODEL is required for the openai engine/],
    ['inferred openai without a model', { OPENAI_API_KEY: 'sk-x' }, /DECIDE_MODEL.*OPENAI_BASE_URL or OPENAI_API_KEY is set/],
    ['systemone without a model', { DECIDE_SYSTEMONE_URL: 'http://h:1' }, /DECIDE_MODEL is required for the systemone engine/],
    ['systemone without a URL', { DECIDE_ENGINE: 'systemone', DECIDE_MODEL: 'm' }, /DECIDE_SYSTEMONE_URL is required/],
    ['api.openai.com without a key', { DECIDE_ENGINE: 'openai', DECIDE_MODEL: 'm' }, /OPENAI_API_KEY is required/],
    ['a base URL that is not a URL', { OPENAI_BASE_URL: 'localhost:8080', DECIDE_MODEL: 'm' }, /OPENAI_BASE_URL must be an http\(s\) URL/],
    [
      'a systemone URL of another scheme',
      { DECIDE_SYSTEMONE_URL: 'ftp://h/', DECIDE_MODEL: 'm' },
      /DECIDE_SYSTEMONE_URL must be an http\(s\) URL/,
    ],
    [
      'a timeout that is not a number',
      { OPENAI_API_KEY: 'k', DECIDE_MODEL: 'm', DECIDE_ENGINE_TIMEOUT_MS: '30s' },
      /DECIDE_ENGINE_TIMEOUT_MS/,
    ],
    ['a zero timeout', { OPENAI_API_KEY: 'k', DECIDE_MODEL: 'm', DECIDE_ENGINE_TIMEOUT_MS: '0' }, /DECIDE_ENGINE_TIMEOUT_MS/],
    ['a fractional timeout', { OPENAI_API_KEY: 'k', DECIDE_MODEL: 'm', DECIDE_ENGINE_TIMEOUT_MS: '1.5' }, /DECIDE_ENGINE_TIMEOUT_MS/],
  ];
  for (const [what, env, message] of cases) {
    it(`throws for ${what}`, () => {
      expect(() => made(env)).toThrow(message);
    });
  }

  it('never puts the API key in a configuration error', () => {
    expect(() => made({ OPENAI_API_KEY: 'sk-very-SECRET', DECIDE_ENGINE_TIMEOUT_MS: 'x', DECIDE_MODEL: 'm' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('SECRET') }),
    );
  });
});

describe('engineFromEnv: the variables reach the wire', () => {
  it('openai: base URL, key, model and timeout', async () => {
    const fake = await startOpenAIFake();
    try {
      const env = { OPENAI_BASE_URL: `${fake.url}/`, OPENAI_API_KEY: 'sk-env', DECIDE_MODEL: 'local-model' };
      // A timeout that must not fire for the call that answers…
      const engine = made({ ...env, DECIDE_ENGINE_TIMEOUT_MS: String(scaled(5_000)) })!;
      await engine.ask('Facts.', { q: { type: 'noul', instructions: 'Holds?' } }, noDeadline());
      expect(fake.requests[0].body.model).toBe('local-model');
      expect(fake.requests[0].headers.authorization).toBe('Bearer sk-env');
      // …and a short one, for a provider that hangs, that must.
      const impatient = made({ ...env, DECIDE_ENGINE_TIMEOUT_MS: '250' })!;
      fake.respond(() => ({ hang: true }));
      const err = await failureOf(impatient.ask('Facts.', { q: { type: 'noul', instructions: 'Holds?' } }, noDeadline()));
      expect(err.kind).toBe('timeout');
      expect(err.message).toContain('did not answer within 250 ms');
    } finally {
      await fake.close();
    }
  });

  it('openai: DECIDE_OPENAI_PROBABILITIES picks logprobs (the default) or verbalized', async () => {
    const fake = await startOpenAIFake();
    try {
      const q = { q: { type: 'noul', instructions: 'Holds?' } } as const;
      for (const [setting, expectsSchema] of [
        [undefined, false],
        ['logprobs', false],
        [' Verbalized ', true],
      ] as const) {
        const engine = made({ OPENAI_BASE_URL: fake.url, DECIDE_MODEL: 'm', DECIDE_OPENAI_PROBABILITIES: setting })!;
        await engine.ask('Facts.', q, noDeadline());
        const body = fake.requests.at(-1)!.body;
        expect(body.response_format?.type === 'json_schema', String(setting)).toBe(expectsSchema);
        expect(body.logprobs === true, String(setting)).toBe(!expectsSchema);
      }
    } finally {
      await fake.close();
    }
  });

  it('anthropic: base URL, key and model, and the key kept out of errors', async () => {
    const fake = await startAnthropicFake();
    try {
      const engine = made({
        DECIDE_ENGINE: 'anthropic',
        ANTHROPIC_BASE_URL: `${fake.url}/`,
        ANTHROPIC_API_KEY: 'sk-ant-env-SECRET',
        DECIDE_MODEL: 'claude-env',
      })!;
      const reply = await engine.ask('Facts.', { q: { type: 'noul', instructions: 'Holds?' } }, noDeadline());
      expect(reply.answers.q.type).toBe('noul');
      expect(fake.requests[0].path).toBe('/v1/messages');
      expect(fake.requests[0].body.model).toBe('claude-env');
      expect(fake.requests[0].headers['x-api-key']).toBe('sk-ant-env-SECRET');
      fake.respond(() => ({
        status: 401,
        body: '{"type":"error","error":{"type":"authentication_error","message":"bad key sk-ant-env-SECRET"}}',
      }));
      const err = await failureOf(engine.ask('Facts.', { q: { type: 'noul', instructions: 'Holds?' } }, noDeadline()));
      expect(err.message).not.toContain('SECRET');
    } finally {
      await fake.close();
    }
  });

  it('systemone: URL, key and model', async () => {
    const fake = await startSystemOneFake();
    try {
      const engine = made({ DECIDE_SYSTEMONE_URL: fake.url, DECIDE_SYSTEMONE_API_KEY: 'ts-env', DECIDE_MODEL: 'jev-env' })!;
      const reply = await engine.ask('Facts.', { q: { type: 'noul', instructions: 'Holds?' } }, noDeadline());
      expect(reply.answers.q.type).toBe('noul');
      expect(fake.requests[0].body.model).toBe('jev-env');
      expect(fake.requests[0].headers.authorization).toBe('Bearer ts-env');
    } finally {
      await fake.close();
    }
  });
});
