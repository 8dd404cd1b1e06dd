import net from 'node:net';
import tls from 'node:tls';

/**
 * A TCP proxy on loopback in front of `target` (HTTP, WebSocket or Redis alike). Its link can be cut
 * and restored, as a party's Wi-Fi drops: cut, every connection through it is dropped and new ones are
 * refused at once, as a phone sees a network that is gone. With `replyDelayMs`, what `target` sends
 * back reaches the client that much late (in order), what the client sends goes at once: in front of
 * Redis, an instance that hears the others' news late, as one across a congested link does. With
 * `tls` (a key and certificate), it speaks TLS to the client, as a deployment's HTTPS front does.
 */
export async function tcpProxy(
  target: string,
  { replyDelayMs = 0, tls: certificate }: { replyDelayMs?: number; tls?: { key: string; cert: string } } = {},
) {
  const { protocol, hostname, port } = new URL(target);
  const open = new Set<net.Socket>();
  let cut = false;
  const relay = (client: net.Socket) => {
    if (cut) return client.destroy();
    const upstream = net.connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream);
    client.on('close', () => upstream.destroy());
    if (replyDelayMs === 0) {
      upstream.pipe(client);
      upstream.on('close', () => client.destroy());
    } else {
      // Timers of one delay fire in the order they were set: the bytes keep their order.
      upstream.on('data', (chunk) => setTimeout(() => client.write(chunk), replyDelayMs));
      upstream.on('close', () => setTimeout(() => client.destroy(), replyDelayMs));
    }
  };
  const server = certificate ? tls.createServer(certificate, relay) : net.createServer(relay);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    url: `${certificate ? 'https:' : protocol}//127.0.0.1:${address.port}`,
    cut() {
      cut = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      cut = false;
    },
    close() {
      this.cut();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
