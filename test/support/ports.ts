import net from 'node:net';

/**
 * A loopback port nothing listens on: one the system just handed out and took back.
 * Not a fixed low port such as 1 or 9, which fetch refuses before trying (the fetch
 * standard's blocked ports), so a connection is really attempted and refused.
 */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves with the error code of a fresh TCP connection (or 'connected'). */
export function connect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/**
 * Polls until a fresh connection is refused. The signal line is written just before the
 * listener closes, so the first attempt can still race the close by a few microseconds.
 */
export async function refusedWithin(port: number, ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  let outcome = await connect(port);
  while (outcome !== 'ECONNREFUSED' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    outcome = await connect(port);
  }
  return outcome;
}
