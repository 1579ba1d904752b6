import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How the host answers one request for the file. */
export interface FileBehaviour {
  /** Send this many bytes of the answer, then drop the connection. */
  cutAfter?: number;
  /** Answer 200 with the whole file whatever Range asked. */
  ignoreRange?: boolean;
  /** Answer with this status and no file. */
  status?: number;
}

export interface FileHostFake {
  /** URL of the file. */
  url: string;
  /** The Range header of each request ('' when none). */
  ranges: string[];
  /** One behaviour per request, in order; the last one repeats. */
  script(...behaviours: FileBehaviour[]): void;
  close(): Promise<void>;
}

/**
 * A model host on loopback (Hugging Face's CDN, a mirror): serves one file with
 * byte ranges, as such hosts do, and fails the ways downloads fail in practice.
 */
export async function startFileHost(data: Buffer, name = 'model.gguf'): Promise<FileHostFake> {
  const ranges: string[] = [];
  let behaviours: FileBehaviour[] = [{}];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    if (req.url !== `/${name}`) return res.writeHead(404).end('not found');
    ranges.push(req.headers.range ?? '');
    const behaviour = behaviours.length > 1 ? behaviours.shift()! : behaviours[0];
    if (behaviour.status) return res.writeHead(behaviour.status).end('no');
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range && !behaviour.ignoreRange ? Number(range[1]) : 0;
    const body = data.subarray(start);
    const headers = { 'accept-ranges': 'bytes', 'content-type': 'application/octet-stream', 'content-length': String(body.length) };
    if (start > 0) res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${data.length - 1}/${data.length}` });
    else res.writeHead(200, headers);
    if (behaviour.cutAfter === undefined) return res.end(body);
    res.write(body.subarray(0, behaviour.cutAfter), () => setTimeout(() => req.socket.destroy(), 20));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${name}`,
    ranges,
    script: (...next) => void (behaviours = next.length ? next : [{}]),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
