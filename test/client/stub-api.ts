import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';

/**
 * Loopback HTTP servers that stand where the decide service would, for what the real
 * one will not do on cue: a scripted stub (any status, body, header, a dropped
 * connection), and a proxy in front of a real service that can lose an answer.
 */

export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** performance.now() when it arrived. */
  at: number;
}

export interface Scripted {
  status: number;
  body?: unknown;
  /** Sent as is (not JSON-encoded) when given. */
  text?: string;
  headers?: Record<string, string>;
  /** Close the connection without an answer. */
  drop?: boolean;
  /** Never answer (until close()). */
  hang?: boolean;
}

export interface Stub {
  url: string;
  requests: SeenRequest[];
  /** Answers to give, in order; once used up, `fallback` answers. */
  script(...answers: Scripted[]): void;
  fallback: Scripted;
  close(): Promise<void>;
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(handler: http.RequestListener) {
  const sockets = new Set<Socket>();
  const server = http.createServer(handler);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function startStub(): Promise<Stub> {
  const requests: SeenRequest[] = [];
  let queue: Scripted[] = [];
  const stub: Stub = {
    url: '',
    requests,
    script: (...answers) => void (queue = answers),
    fallback: { status: 500, body: { error: 'the stub has no answer scripted', code: 'internal_error' } },
    close: async () => {},
  };
  const server = await listen(async (req, res) => {
    const body = await readBody(req);
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: flatHeaders(req.headers), body, at: performance.now() });
    const answer = queue.shift() ?? stub.fallback;
    if (answer.drop) return void req.socket.destroy();
    if (answer.hang) return;
    const text = answer.text ?? JSON.stringify(answer.body ?? {});
    res.writeHead(answer.status, { 'content-type': answer.text ? 'text/html' : 'application/json', ...answer.headers });
    res.end(text);
  });
  stub.url = server.url;
  stub.close = server.close;
  return stub;
}

export interface LossyProxy {
  url: string;
  requests: SeenRequest[];
  /** The next `n` decisions are forwarded and answered by the service, but the caller gets a 503 instead. */
  loseNext(n: number): void;
  close(): Promise<void>;
}

/**
 * A proxy in front of a real service that can lose answers: the decision reaches the
 * service (which charges for it), the answer is thrown away and the caller gets what
 * a gateway says when its upstream reply went missing, 503 with Retry-After: 1.
 */
export async function startLossyProxy(target: string): Promise<LossyProxy> {
  const requests: SeenRequest[] = [];
  let toLose = 0;
  const server = await listen(async (req, res) => {
    const body = await readBody(req);
    const headers = flatHeaders(req.headers);
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers, body, at: performance.now() });
    delete headers.host;
    delete headers.connection;
    let upstream: Awaited<ReturnType<typeof request>>;
    let text: string;
    try {
      upstream = await request(target + (req.url ?? '/'), {
        method: req.method as 'POST',
        headers,
        body: body === '' ? undefined : body,
      });
      text = await upstream.body.text();
    } catch (error) {
      // The service went away under the proxy: a gateway's 502, never an unhandled rejection.
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `upstream failed: ${(error as Error).message}`, code: 'bad_gateway' }));
      return;
    }
    if (req.method === 'POST' && toLose > 0) {
      toLose--;
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify({ error: 'the gateway lost the upstream answer', code: 'engine_unavailable' }));
      return;
    }
    const passOn: Record<string, string> = {};
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value !== undefined && !['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(name)) {
        passOn[name] = Array.isArray(value) ? value.join(', ') : value;
      }
    }
    res.writeHead(upstream.statusCode, passOn);
    res.end(text);
  });
  return { url: server.url, requests, loseNext: (n) => void (toLose = n), close: server.close };
}
