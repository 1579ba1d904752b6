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
