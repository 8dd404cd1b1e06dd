import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectError, type DisconnectReason, LeanSocket } from '../../loadtest/lean-socket';

/** A bare Socket.IO server: the load tool's client must speak to it as socket.io-client would. */
describe('LeanSocket against a Socket.IO server', () => {
  let io: Server;
  let url: string;

  beforeAll(async () => {
    const server = http.createServer();
    io = new Server(server);
    io.use((socket, next) => (socket.handshake.auth.token === 'good' ? next() : next(new Error('unauthorized'))));
    io.on('connection', (socket) => {
      socket.on('message:send', (payload: { content: string }, ack: (reply: object) => void) => {
        socket.emit('message:new', { conversation_id: 1, message: { content: payload.content.toUpperCase() } } as never);
        ack({ ok: true, echoed: payload.content });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => io.close(resolve));
  });

  it('sends events with acknowledgements and hears the server’s events, non-ASCII included', async () => {
    const socket = await LeanSocket.open(url, { token: 'good' });
    const heard = new Promise((resolve) => socket.on('message:new', resolve as never));
    const reply = await new Promise((resolve) => socket.emit('message:send', { conversation_id: 1, content: 'hola, ñandú 🎉', client_id: 'a' } as never, resolve as never));
    expect(reply).toEqual({ ok: true, echoed: 'hola, ñandú 🎉' });
    expect(await heard).toEqual({ conversation_id: 1, message: { content: 'HOLA, ÑANDÚ 🎉' } });
    socket.close();
    expect(socket.emit('typing', { conversation_id: 1 })).toBe(false);
  });

  it('connects once however often it is asked, while connecting and once connected', async () => {
    const opened: string[] = [];
    const count = (socket: { id: string; handshake: { auth: { tag?: string } } }) => {
      if (socket.handshake.auth.tag === 'once') opened.push(socket.id);
    };
    io.on('connection', count);
    const socket = new LeanSocket(url, { token: 'good', tag: 'once' });
    try {
      await Promise.all([socket.connect(), socket.connect()]);
      await socket.connect();
      expect(socket.connected).toBe(true);
      // Each call resolves once its own handshake is accepted, which the server counts before it answers.
      expect(opened).toHaveLength(1);
    } finally {
      socket.close();
      io.off('connection', count);
    }
  });

  it('rejects with the server’s connect_error', async () => {
    const refused = LeanSocket.open(url, { token: 'bad' });
    await expect(refused).rejects.toThrow(ConnectError);
    await expect(refused).rejects.toThrow('unauthorized');
  });

  it('reconnects after a dropped transport and, as the app does, after the server’s own disconnect', async () => {
    const reasons: Array<[DisconnectReason, boolean]> = [];
    let connects = 0;
    let reconnected: () => void = () => {};
    const socket = await LeanSocket.open(
      url,
      { token: 'good' },
      {
        reconnect: { minDelayMs: 10, maxDelayMs: 20, serverDisconnectDelayMs: 50 },
        onConnect: () => {
          connects += 1;
          reconnected();
        },
        onDisconnect: (_socket, reason, willReconnect) => reasons.push([reason, willReconnect]),
      },
    );
    let back = new Promise<void>((resolve) => (reconnected = resolve));
    // The transport goes away under the Socket.IO session: a dropped connection.
    for (const each of io.sockets.sockets.values()) each.conn.close();
    await back;
    expect(reasons).toEqual([['transport close', true]]);
    expect(socket.connected).toBe(true);

    // The server disconnects the socket (a restart that disconnects rather than closes, a drain):
    // socket.io-client would stay offline; the app connects again a second later, and so does this.
    back = new Promise<void>((resolve) => (reconnected = resolve));
    io.disconnectSockets();
    await back;
    expect(reasons.at(-1)).toEqual(['io server disconnect', true]);
    expect(connects).toBe(3);
    expect(socket.connected).toBe(true);
    expect(socket.handshakeMs).toBeGreaterThan(0);
    socket.close();
  });

  it('after the server’s disconnect, a refusal for now is tried again with backoff; a refused token is not', async () => {
    const server = http.createServer();
    const refusing = new Server(server);
    // The user's other sockets fill their allowance for the next three tries, then one goes away.
    let refusals = 3;
    const tries: number[] = [];
    refusing.use((socket, next) => {
      const { token } = socket.handshake.auth as { token: string };
      if (token === 'revoked') return next(new Error('unauthorized'));
      tries.push(performance.now());
      if (tries.length > 1 && refusals > 0) {
        refusals -= 1;
        return next(new Error('too_many_connections'));
      }
      next();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const errors: string[] = [];
      let reconnected: () => void = () => {};
      const socket = await LeanSocket.open(
        address,
        { token: 'good' },
        {
          reconnect: { serverDisconnectDelayMs: 20, refusedMaxDelayMs: 50 },
          onConnect: () => reconnected(),
          onReconnectError: (_socket, error) => errors.push(error.message),
        },
      );
      const back = new Promise<void>((resolve) => (reconnected = resolve));
      refusing.disconnectSockets();
      await back;
      expect(socket.connected).toBe(true);
      expect(errors).toEqual(['too_many_connections', 'too_many_connections', 'too_many_connections']);
      // 20 ms after the disconnect, then 20, 40 and 50 (the bound) after each refusal.
      const waits = tries.slice(2).map((at, i) => at - tries[i + 1]!);
      expect(waits[0]).toBeGreaterThanOrEqual(19);
      expect(waits[1]).toBeGreaterThanOrEqual(39);
      expect(waits[2]).toBeGreaterThanOrEqual(49);
      socket.close();

      // A token the server no longer takes (signed out elsewhere, a ban): the app gives up, and so does this.
      const gaveUp: string[] = [];
      const revoked = await LeanSocket.open(address, { token: 'good' }, {
        reconnect: { serverDisconnectDelayMs: 10, refusedMaxDelayMs: 10 },
        onReconnectError: (_socket, error) => gaveUp.push(error.message),
      });
      revoked.auth = { token: 'revoked' };
      refusing.disconnectSockets();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(gaveUp).toEqual(['unauthorized']);
      expect(revoked.connected).toBe(false);
      revoked.close();
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  });
});
