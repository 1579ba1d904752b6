import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface ProxyFake {
  /** `http://127.0.0.1:PORT`, for HTTPS_PROXY / HTTP_PROXY. */
  url: string;
  /** What went through it: `CONNECT host:port` for a tunnel, `GET http://…` for a forwarded request. */
  seen: string[];
  /** Whether it answers 407 until it is sent `Proxy-Authorization: Basic base64(user:password)`. */
  requireAuth(credentials: string | null): void;
  close(): Promise<void>;
}

/**
 * A forward proxy on loopback, as a corporate network puts in front of everything:
 * CONNECT tunnels (what undici's proxy agent sends for https:// and http:// alike) and
 * absolute-URI requests forwarded as they are, each recorded; optionally it asks for
 * credentials (407), as many do.
 */
export async function startProxyFake(): Promise<ProxyFake> {
  const seen: string[] = [];
  let credentials: string | null = null;
  const sockets = new Set<net.Socket>();
  const allowed = (header: string | undefined) => credentials === null || header === `Basic ${Buffer.from(credentials).toString('base64')}`;

  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (!allowed(req.headers['proxy-authorization'])) return res.writeHead(407, { 'proxy-authenticate': 'Basic' }).end();
    const target = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = http.request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    if (!allowed(req.headers['proxy-authorization'])) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const drop = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', () => (client.writable ? client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n') : drop()));
    client.on('error', drop);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    requireAuth: (next) => void (credentials = next),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
