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

  it('rejects with the server’s connect_error', async () => {
    const refused = LeanSocket.open(url, { token: 'bad' });
    await expect(refused).rejects.toThrow(ConnectError);
    await expect(refused).rejects.toThrow('unauthorized');
  });

  it('tells a server’s disconnect from a dropped transport, and reconnects only after the latter', async () => {
    const reasons: Array<[DisconnectReason, boolean]> = [];
    let connects = 0;
    let reconnected: () => void = () => {};
    let disconnected: () => void = () => {};
    const socket = await LeanSocket.open(
      url,
      { token: 'good' },
      {
        reconnect: { minDelayMs: 10, maxDelayMs: 20 },
        onConnect: () => {
          connects += 1;
          reconnected();
        },
        onDisconnect: (_socket, reason, willReconnect) => {
          reasons.push([reason, willReconnect]);
          disconnected();
        },
      },
    );
    const back = new Promise<void>((resolve) => (reconnected = resolve));
    // The transport goes away under the Socket.IO session: a dropped connection.
    for (const each of io.sockets.sockets.values()) each.conn.close();
    await back;
    expect(reasons).toEqual([['transport close', true]]);
    expect(socket.connected).toBe(true);

    const gone = new Promise<void>((resolve) => (disconnected = resolve));
    io.disconnectSockets();
    await gone;
    expect(reasons.at(-1)).toEqual(['io server disconnect', false]);
    expect(connects).toBe(2);
    expect(socket.connected).toBe(false);
  });
});
