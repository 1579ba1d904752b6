import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { EngineError } from '../../src/engine/engine.js';

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
