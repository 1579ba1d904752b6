import type { AddressInfo } from 'node:net';
import net from 'node:net';

export interface ClosingHostFake {
  url: string;
  /** The Range header of each request ('' when none). */
  ranges: string[];
  close(): Promise<void>;
}

/**
 * A file host that answers each request with `Connection: close`, as HTTP/1.0 servers
 * and many mirrors do, writing the file in bursts of `burst` bytes (each waiting for
 * the socket to drain, so the reader falls behind and catches up again, over and
 * over) and closing the connection (FIN) with the last one. A reader paused by
 * backpressure at that moment is what crashed undici's parser (nodejs/undici#5360).
 * It honours `Range: bytes=N-` (206), as nginx-served mirrors do.
 */
export async function startClosingHost(data: Buffer, burst = 1024 * 1024): Promise<ClosingHostFake> {
  const sockets = new Set<net.Socket>();
  const ranges: string[] = [];
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.once('data', async (head: Buffer) => {
      const range = /^range: bytes=(\d+)-\r?$/im.exec(head.toString('latin1'));
      ranges.push(range ? `bytes=${range[1]}-` : '');
      const start = range ? Number(range[1]) : 0;
      const status = start > 0 ? `206 Partial Content\r\nContent-Range: bytes ${start}-${data.length - 1}/${data.length}` : '200 OK';
      socket.write(
        `HTTP/1.1 ${status}\r\nContent-Length: ${data.length - start}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n`,
      );
      for (let at = start; at < data.length; at += burst) {
        const chunk = data.subarray(at, at + burst);
        if (at + burst >= data.length) socket.end(chunk);
        else if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/model.gguf`,
    ranges,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
