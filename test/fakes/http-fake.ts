import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { parseKeepingOrder } from '../../src/json/key-order.js';
import { scaled } from '../support/time.js';
import { seeded } from '../../src/eval/random.js';

/**
 * The HTTP side shared by the protocol fakes: a real server on 127.0.0.1:0 that records
 * every request and plays one scripted behaviour per request, including the ways a
 * provider fails (status, hang, cut-off body, non-JSON, delay).
 */

export interface RecordedRequest {
  method: string;
  path: string;
  /** Parsed JSON, or the raw text when the body was not JSON. */
  body: any;
  /** Lower-cased header names. */
  headers: Record<string, string>;
}

/** Failure modes and timing every fake understands. */
export interface CommonBehaviour {
  /** Answer with this status (and `body`, `headers`) instead of a success. */
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Accept the request and never answer, until `close()`. */
  hang?: boolean;
  /** Send 200 headers announcing the full success body, half of it, then drop the connection. */
  truncated?: boolean;
  /** 200 with a body that is not JSON. */
  garbage?: boolean;
  /** Wait this long before doing any of the above. */
  delayMs?: number;
  /**
   * Hold the answer until this settles (then do any of the above): the test decides
   * when the provider answers, e.g. only once something else has happened meanwhile.
   */
  until?: Promise<unknown>;
  /**
   * Stream the answer (the success JSON, or `body` / the error JSON with `status`)
   * padded with spaces to this many bytes, with back-pressure and `Content-Length`;
   * `Infinity` streams chunked without end. Its fate is recorded in `streams`.
   */
  padTo?: number;
  /** With `padTo`: chunked, no `Content-Length`, so the reader must count. */
  chunked?: boolean;
}

/** What became of one `padTo` answer: bytes handed to the socket, and whether it all went. */
export interface StreamOutcome {
  sent: number;
  complete: boolean;
}

export type Handler<B> = (body: any, request: RecordedRequest) => B | Promise<B>;

export interface Fake<B> {
  /** Base URL to hand to the engine. */
  url: string;
  requests: RecordedRequest[];
  /** One per `padTo` answer, settled when it was sent whole or its connection closed. */
  streams: Promise<StreamOutcome>[];
  /** Requests received and not yet answered (or abandoned) right now. */
  readonly inFlight: number;
  /** The most requests in flight at once since the start (or the last `reset()`). */
  readonly maxInFlight: number;
  /**
   * Resolves once `n` requests are in flight at once: as `until`, it holds each answer
   * until they all arrived, which shows they were asked together. Should they never
   * all arrive (asked one after another), it gives up after a scaled 2 s and lets
   * them (and any later wait for `n`) through, so the test goes on to say so through
   * `maxInFlight`.
   */
  whenInFlight(n: number): Promise<void>;
  /** Script the next requests; with no handler, back to the fake's default. */
  respond(handler?: Handler<B>): void;
  /** The status `GET` of the models list answers with (200 with one model, else an error); 200 after `reset()`. */
  modelsStatus: number;
  /** The `GET`s of the models list (the engines' probe), apart from `requests`. */
  probes: RecordedRequest[];
  /** Back to a fresh fake for the next test: default answers, nothing recorded. */
  reset(): void;
  close(): Promise<void>;
}

export const GARBAGE_BODY = '<html><body>502 Bad Gateway (not JSON)</body></html>';

export async function startHttpFake<B extends CommonBehaviour>(options: {
  /** Path the protocol answers on; anything else is 404. */
  path: string;
  /** Where `GET` lists the models (the engines' start-up probe), if the protocol has such a list. */
  modelsPath?: string;
  /** Appended to the server's origin to form `url`. */
  basePath: string;
  defaultHandler: Handler<B>;
  /** The 200 JSON body for a behaviour that is not a failure. */
  success: (behaviour: B, body: any) => unknown;
  /** The JSON body of a scripted `status` without its own `body`; default `{ error: { message } }`. */
  errorBody?: (status: number, behaviour: B) => unknown;
}): Promise<Fake<B>> {
  const requests: RecordedRequest[] = [];
  const probes: RecordedRequest[] = [];
  const streams: Promise<StreamOutcome>[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let handler: Handler<B> = options.defaultHandler;
  let inFlight = 0;
  let maxInFlight = 0;
  const inFlightWaiters = new Set<{ n: number; resolve: () => void }>();
  /** Counts `whenInFlight` gave up waiting for: later waits for them end at once. */
  const neverReached = new Set<number>();

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any = text;
    try {
      // Objects keep the order they were sent in (keysInOrder), as a server reading them would see it.
      body = parseKeepingOrder(text);
    } catch {
      // recorded raw
    }
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
    const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', body, headers };
    if (req.method === 'GET' && options.modelsPath !== undefined && recorded.path === options.modelsPath) {
      // The start-up and readiness probe: kept apart, so `requests` holds the protocol's calls alone.
      probes.push(recorded);
      return json(
        res,
        fake.modelsStatus,
        fake.modelsStatus === 200
          ? { object: 'list', data: [{ id: 'fake-model', object: 'model' }] }
          : { error: { message: `scripted HTTP ${fake.modelsStatus}` } },
      );
    }
    requests.push(recorded);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => inFlight--);
    for (const waiter of inFlightWaiters) if (inFlight >= waiter.n) waiter.resolve();

    if (req.method !== 'POST' || recorded.path !== options.path)
      return json(res, 404, { error: `no route ${req.method} ${recorded.path}` });
    const behaviour = await handler(body, recorded);
    if (behaviour.until) await behaviour.until;
    if (behaviour.delayMs) await wait(behaviour.delayMs);
    if (res.destroyed) return;
    if (behaviour.hang) return;
    if (behaviour.status !== undefined) {
      const error = options.errorBody?.(behaviour.status, behaviour) ?? { error: { message: `scripted HTTP ${behaviour.status}` } };
      const text = behaviour.body ?? JSON.stringify(error);
      if (behaviour.padTo !== undefined) {
        streams.push(streamPadded(res, behaviour.status, text, behaviour));
        return;
      }
      res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
      res.end(text);
      return;
    }
    if (behaviour.garbage) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(GARBAGE_BODY);
      return;
    }
    const full = JSON.stringify(options.success(behaviour, body));
    if (behaviour.padTo !== undefined) {
      streams.push(streamPadded(res, 200, full, behaviour));
      return;
    }
    if (behaviour.truncated) {
      const bytes = Buffer.from(full);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
      return;
    }
    json(res, 200, JSON.parse(full));
  }

  const server = http.createServer((req, res) => {
    serve(req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: `fake handler failed: ${err instanceof Error ? err.message : String(err)}` });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: Fake<B> = {
    modelsStatus: 200,
    probes,
    url: `http://127.0.0.1:${port}${options.basePath}`,
    requests,
    streams,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    whenInFlight(n) {
      if (inFlight >= n || neverReached.has(n)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const waiter = {
          n,
          resolve: () => {
            clearTimeout(timer);
            timers.delete(timer);
            inFlightWaiters.delete(waiter);
            resolve();
          },
        };
        // Well within the engines' scaled deadlines, so the test fails on its count.
        const timer = setTimeout(() => {
          neverReached.add(n);
          waiter.resolve();
        }, scaled(2_000));
        timers.add(timer);
        inFlightWaiters.add(waiter);
      });
    },
    respond(next) {
      handler = next ?? options.defaultHandler;
    },
    reset() {
      handler = options.defaultHandler;
      requests.length = 0;
      streams.length = 0;
      maxInFlight = inFlight;
      neverReached.clear();
      fake.modelsStatus = 200;
      probes.length = 0;
    },
    async close() {
      for (const waiter of inFlightWaiters) waiter.resolve();
      for (const timer of timers) clearTimeout(timer);
      // Hanging requests keep their sockets open forever; close() alone would wait for them.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

const PADDING = Buffer.alloc(64 * 1024, ' ');

/** `text` then spaces up to `padTo` bytes (JSON allows trailing white space), from one reused buffer. */
function streamPadded(res: http.ServerResponse, status: number, text: string, behaviour: CommonBehaviour): Promise<StreamOutcome> {
  const total = behaviour.padTo!;
  const declared = Number.isFinite(total) && !behaviour.chunked;
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(declared ? { 'content-length': String(total) } : {}),
    ...behaviour.headers,
  });
  res.write(text);
  let sent = Buffer.byteLength(text);
  return new Promise((resolve) => {
    res.on('close', () => resolve({ sent, complete: res.writableFinished }));
    const pump = () => {
      while (sent < total && !res.destroyed) {
        const n = Math.min(PADDING.length, total - sent);
        sent += n;
        if (!res.write(n === PADDING.length ? PADDING : PADDING.subarray(0, n))) {
          res.once('drain', pump);
          return;
        }
      }
      if (!res.destroyed) res.end();
    };
    pump();
  });
}

function json(res: http.ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/** FNV-1a 32-bit: a stable seed from request content. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** mulberry32: a tiny deterministic PRNG in [0, 1), the one the evaluation's resampling uses. */
export const mulberry32 = seeded;

/** `count` weights drawn uniformly from [0.25, 1.25) by mulberry32(seed), scaled to sum to `total`. */
export function seededDistribution(seed: number, count: number, total = 1): number[] {
  const next = mulberry32(seed);
  const weights = Array.from({ length: count }, () => 0.25 + next());
  const sum = weights.reduce((s, w) => s + w, 0);
  return weights.map((w) => (w / sum) * total);
}
