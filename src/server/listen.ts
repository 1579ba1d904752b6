import { createAdaptorServer } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Server, ServerResponse } from 'node:http';
import type { Hono } from 'hono';

export interface RunningServer {
  url: string;
  port: number;
  /** Answers every request from now on with `app` (serve.ts binds first with a "starting" app, then hands over). */
  // biome-ignore lint/suspicious/noExplicitAny: an app of any environment; Hono's type parameter admits no wider one
  use(app: Hono<any>): void;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

/**
 * How long a client has to send its whole request, headers and body: past it, Node
 * answers 408 and closes the connection. Node's own 300 s let a body trickled a byte
 * every few seconds hold a socket for five minutes; the largest body decide takes (a
 * System One request, 1 MiB) needs a fraction of this on any working link. Node looks
 * for such requests every `connectionsCheckingInterval`, so a trickle is cut within a
 * second of the limit. Behind a proxy that buffers bodies (nginx's default) the proxy's
 * own limit (`client_body_timeout`) meets the slow client first (docs/operations.md).
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/** Listens on host:port (0 = an ephemeral port); rejects on EADDRINUSE and the like. */
// biome-ignore lint/suspicious/noExplicitAny: as above, an app of any environment
export function listen(app: Hono<any>, port: number, host: string): Promise<RunningServer> {
  let current = app;
  const server = createAdaptorServer({
    fetch: (request: Request, env: unknown) => current.fetch(request, env),
    serverOptions: { requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1_000 },
  }) as Server;
  let closing = false;
  const live = new Set<ServerResponse>();
  // server.close() only drops connections idle at that moment: a keep-alive connection
  // busy with a decision would stay open and serve new requests after it. Once
  // closing, every answer says `Connection: close` and its connection is dropped.
  server.on('request', (_request, response: ServerResponse) => {
    live.add(response);
    if (closing) response.setHeader('Connection', 'close');
    response.once('close', () => {
      live.delete(response);
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${shownHost}:${address.port}`,
        port: address.port,
        use: (next) => {
          current = next;
        },
        close: () =>
          new Promise<void>((done) => {
            closing = true;
            for (const response of live) if (!response.headersSent) response.setHeader('Connection', 'close');
            server.close(() => done());
            server.closeIdleConnections();
          }),
      });
    });
  });
}
