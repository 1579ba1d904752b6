import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_TIMEOUT_MS } from '../../src/server/listen.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';

/**
 * A body trickled a byte every two seconds (a slowloris) no longer holds its socket for
 * Node's five minutes: past the request timeout the server answers 408 and closes,
 * nothing is asked of the engine and nothing charged.
 */
describe('a body sent too slowly', () => {
  let svc: Running;
  let port: number;
  beforeAll(async () => {
    svc = await startWithOpenAI();
    port = Number(new URL(svc.url).port);
  });
  afterAll(() => svc.close());

  it(
    `is cut with 408 once the request has taken ${REQUEST_TIMEOUT_MS / 1000} s, and the connection closed`,
    async () => {
      const { key } = await svc.newKey();
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      const closed = new Promise((resolve) => socket.once('close', resolve));
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /v1/decisions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          `Authorization: Bearer ${key}\r\nContent-Length: 1000\r\n\r\n{`,
      );
      const trickle = setInterval(() => socket.writable && socket.write(' '), 2_000);
      await closed;
      clearInterval(trickle);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(svc.fake.requests).toHaveLength(0);
      expect((await svc.call('GET', '/v1/usage', { key })).body).toMatchObject({ freeUsed: 0 });
      // The server goes on serving.
      expect((await svc.call('GET', '/healthz')).status).toBe(200);
    },
    scaled(REQUEST_TIMEOUT_MS + 60_000),
  );
});
