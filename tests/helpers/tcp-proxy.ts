import net from 'node:net';
import tls from 'node:tls';

/** How late what goes each way through a `tcpProxy` arrives, in milliseconds. */
export interface ProxyDelays {
  replyDelayMs?: number;
  requestDelayMs?: number;
}

/**
 * A TCP proxy on loopback in front of `target` (HTTP, WebSocket or Redis alike). Its link can be cut
 * and restored, as a party's Wi-Fi drops: cut, every connection through it is dropped and new ones are
 * refused at once, as a phone sees a network that is gone. With `replyDelayMs`, what `target` sends
 * back reaches the client that much late (in order), what the client sends goes at once: in front of
 * Redis, an instance that hears the others' news late, as one across a congested link does. With
 * `requestDelayMs`, what the client sends reaches `target` that much late (in order): in front of Redis,
 * an instance whose subscriptions take effect late, so that what is published meanwhile passes it by. With
 * `tls` (a key and certificate), it speaks TLS to the client, as a deployment's HTTPS front does.
 *
 * `onClientData` sees what each client sends, before it goes on: a test can act at an exact request,
 * for instance hold the replies (`holdReplies`) before the one to that request can come back.
 */
export async function tcpProxy(
  target: string,
  {
    replyDelayMs = 0,
    requestDelayMs = 0,
    tls: certificate,
    onClientData,
  }: ProxyDelays & { tls?: { key: string; cert: string }; onClientData?: (chunk: Buffer) => void } = {},
) {
  const { protocol, hostname, port } = new URL(target);
  const open = new Set<net.Socket>();
  let cut = false;
  let held = false;
  /** While paused, the replies in the order they came, each delivered once the pause ends. */
  let paused: Array<() => void> | null = null;
  const relay = (client: net.Socket) => {
    if (cut) return client.destroy();
    const upstream = net.connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => {});
    }
    // Before the pipe's own listener: what it does comes first.
    if (onClientData) client.on('data', onClientData);
    if (requestDelayMs === 0) client.pipe(upstream);
    else client.on('data', (chunk: Buffer) => setTimeout(() => upstream.write(chunk), requestDelayMs));
    client.on('close', () => upstream.destroy());
    // Timers of one delay fire in the order they were set: the bytes keep their order. Held, the
    // replies not yet delivered go no further, nor does the target's close: the client waits.
    const back = (deliver: () => void) => {
      const unlessHeld = () => {
        if (held) return;
        if (paused) paused.push(deliver);
        else deliver();
      };
      if (replyDelayMs === 0) unlessHeld();
      else setTimeout(unlessHeld, replyDelayMs);
    };
    upstream.on('data', (chunk: Buffer) => back(() => client.write(chunk)));
    upstream.on('close', () => back(() => client.destroy()));
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
    /**
     * From now on, nothing the target sends reaches a client, until the proxy closes: every request in
     * flight waits for an answer that does not come, as from a server stalled at that moment.
     */
    holdReplies() {
      held = true;
    },
    /**
     * From now on, what the target sends waits, in order, until the returned `resume` is called: the
     * requests in flight are answered then, as by a server that stalled for that long.
     */
    pauseReplies() {
      const waiting: Array<() => void> = [];
      paused = waiting;
      return () => {
        if (paused === waiting) paused = null;
        for (const deliver of waiting) deliver();
      };
    },
    close() {
      this.cut();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
