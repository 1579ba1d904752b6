import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { readEngineConfig } from '../../src/config/config.js';
import { type Engine, EngineError, type ChoiceQuestion, type NoulQuestion, type ScoreQuestion } from '../../src/engine/engine.js';
import { providerEngine } from '../../src/engine/provider.js';

/**
 * The provider engine `env` configures, as `decide serve` makes it: the variables
 * read by the configuration (config/config.ts), the engine built from what it read;
 * null when the local engine is chosen.
 */
export function engineFromEnv(env: Record<string, string | undefined>): Engine | null {
  const { settings, timeoutMs, proxy } = readEngineConfig(env);
  return settings.kind === 'local' ? null : providerEngine(settings, { timeoutMs, proxy });
}

/** The EngineError an ask rejects with; fails the test if it resolves or throws something else. */
export async function failureOf(promise: Promise<unknown>): Promise<EngineError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  expect(caught, 'expected the call to fail').toBeInstanceOf(EngineError);
  return caught as EngineError;
}

/** A port that nothing listens on: bound once, then released. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A signal that never aborts, for tests of the engine's own timeout. */
export const noDeadline = (): AbortSignal => new AbortController().signal;

export const ln = Math.log;

/** The questions and state the engines' own tests ask about. */
export const fund: ChoiceQuestion = {
  type: 'choice',
  instructions: 'Which should we do with the plan?',
  criteria: [
    { label: 'approve', description: 'the plan is funded' },
    { label: 'reject', description: null },
  ],
};
export const holds: NoulQuestion = { type: 'noul', instructions: 'Do the facts settle it?' };
export const risk: ScoreQuestion = { type: 'score', instructions: 'How risky is it?', criteria: ['low', 'medium', 'high'] };
export const STATE = 'The plan costs 40k.\nThe team has shipped twice.';
