import net from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { makeCompletedUser } from '../helpers/factories';
import { serverPerSuite } from '../helpers/server';
import { connect } from '../helpers/socket';

/** The time a request has to arrive whole, shortened from the 5 minutes of production. */
const LIMIT_MS = 1000;

/**
 * A request whose head is sent at once and whose body then comes a byte every 100 ms, as from a phone
 * whose upload has stalled (or a client holding the connection): what the server answers, and when.
 */
function trickledRequest(url: string, head: string, bodyBytes: number) {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  const socket = net.connect({ host: hostname, port: Number(port) });
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString('utf8')));
  socket.on('error', () => {});
  socket.write(`${head}Content-Length: ${bodyBytes}\r\n\r\n`);
  let sent = 0;
  const trickle = setInterval(() => {
    if (sent < bodyBytes && socket.writable) socket.write(' ', () => {});
    sent++;
  }, 100);
  // All it was sent, whatever that was: the body is everything after the first head.
  return new Promise<{ status: number; body: string; elapsedMs: number }>((resolve) => {
    socket.on('close', () => {
      clearInterval(trickle);
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: Number(text.split(' ')[1]), body: text.slice(split + 4), elapsedMs: Date.now() - started });
    });
  });
}

describe('a request that takes too long to arrive', () => {
  const logged: Array<{ level: number; msg: string }> = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      logged.push(JSON.parse(String(chunk)));
      callback();
    },
  });
  const server = serverPerSuite({ config: { requestTimeoutMs: LIMIT_MS }, logger: { level: 'warn', stream } });

  it('is answered 408 in the envelope, in its language, once its time is up', async () => {
    const host = new URL(server.url).host;
    const answer = await trickledRequest(
      server.url,
      `POST /api/auth/ HTTP/1.1\r\nHost: ${host}\r\nAccept-Language: es\r\nContent-Type: application/json\r\n`,
      100,
    );
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({ detail: 'La solicitud tardó demasiado en llegar.' });
    // Cut at its time (Node looks every tenth of it), long before its 100 bytes would have come.
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(LIMIT_MS);
    expect(answer.elapsedMs).toBeLessThan(5000);
    expect(logged.filter((line) => line.level >= 50)).toEqual([]);
  });

  it('is not answered twice: answered before its body came, it is only closed once its time is up', async () => {
    const host = new URL(server.url).host;
    // An upload without a token is refused at once; its body then trickles on.
    const answer = await trickledRequest(
      server.url,
      `POST /api/uploads/ HTTP/1.1\r\nHost: ${host}\r\nAccept-Language: es\r\nContent-Type: multipart/form-data; boundary=x\r\n`,
      100,
    );
    expect(answer.status).toBe(401);
    // Its answer alone: no 408 after it.
    expect(answer.body).toBe(JSON.stringify({ detail: 'No se han enviado credenciales.' }));
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(LIMIT_MS);
    expect(answer.elapsedMs).toBeLessThan(5000);
  });

  it('leaves a WebSocket open long past it', async () => {
    const user = await makeCompletedUser(server);
    const socket = await connect(server.url, user.token);
    try {
      let dropped = false;
      socket.on('disconnect', () => (dropped = true));
      await new Promise((resolve) => setTimeout(resolve, 3 * LIMIT_MS));
      expect(dropped).toBe(false);
      const ack = await socket.timeout(5000).emitWithAck('message:send', { conversation_id: 1, content: '', client_id: 'not-a-uuid' });
      expect(ack).toMatchObject({ ok: false, error: { code: 'validation' } });
    } finally {
      socket.close();
    }
  });
});
