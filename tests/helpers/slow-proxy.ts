import net from 'node:net';

/**
 * A TCP proxy on loopback in front of `target` whose link is slow one way: what `target` sends back
 * reaches the client `latencyMs` late (in order), what the client sends goes at once. In front of
 * Redis, an instance that hears the others' news late, as one across a congested link does.
 */
export async function slowProxy(target: string, latencyMs: number) {
  const { protocol, hostname, port } = new URL(target);
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream);
    // Timers of one delay fire in the order they were set: the bytes keep their order.
    upstream.on('data', (chunk) => setTimeout(() => client.write(chunk), latencyMs));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => setTimeout(() => client.destroy(), latencyMs));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    url: `${protocol}//127.0.0.1:${address.port}`,
    close() {
      for (const socket of open) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
