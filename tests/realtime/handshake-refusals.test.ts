import { describe, expect, it } from 'vitest';
import { makeCompletedUser } from '../helpers/factories';
import { type RawResponse, rawRequest } from '../helpers/raw-http';
import { serverPerSuite } from '../helpers/server';
import { connect } from '../helpers/socket';

const SPANISH = { 'accept-language': 'es' };
/** A WebSocket handshake's headers, as a browser sends them. */
const UPGRADE = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };

/** An answer, or "no answer" once `ms` have passed without one. */
const within = (answer: Promise<RawResponse>, ms: number) =>
  Promise.race([answer, new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), ms))]);

/**
 * The socket path answers what it refuses in the API's envelope, in the request's language, as every
 * other path does; engine.io's own answers were English `{code, message}`, or bare text for an upgrade.
 */
describe('the socket path’s refusals', () => {
  const server = serverPerSuite();

  it('refuses a plain HTTP request in the envelope: it takes WebSockets only', async () => {
    for (const request of [
      { path: '/socket.io/?EIO=3' },
      { path: '/socket.io/?EIO=4&transport=polling' },
      { path: '/socket.io/?EIO=4&transport=websocket' },
      { path: '/socket.io/?EIO=4&transport=websocket&sid=nobody' },
      { method: 'POST', path: '/socket.io/?EIO=4&transport=polling', body: '1:6' },
    ]) {
      const refused = await rawRequest(server.url, { ...request, headers: SPANISH });
      expect(refused.status, request.path).toBe(400);
      expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(refused.headers['x-content-type-options']).toBe('nosniff');
      expect(JSON.parse(refused.body)).toEqual({ detail: 'Esta dirección solo admite conexiones WebSocket.' });
    }
    const english = await rawRequest(server.url, { path: '/socket.io/?EIO=4&transport=polling' });
    expect(JSON.parse(english.body)).toEqual({ detail: 'This address takes WebSocket connections only.' });
  });

  it('answers a plain request naming an open socket’s session, which engine.io left hanging', async () => {
    const user = await makeCompletedUser(server);
    const socket = await connect(server.url, user.token);
    try {
      const sid = (socket.io.engine as unknown as { id: string }).id;
      const answer = await within(rawRequest(server.url, { path: `/socket.io/?EIO=4&transport=websocket&sid=${sid}` }), 5000);
      expect(answer).toMatchObject({ status: 400 });
      // The socket itself goes on.
      expect(await socket.timeout(5000).emitWithAck('message:send', { conversation_id: 1, content: '', client_id: 'x' })).toMatchObject({ ok: false });
    } finally {
      socket.close();
    }
  });

  it('refuses an upgrade in the envelope, before upgrading: another protocol, an unknown transport or session', async () => {
    const refused = async (path: string) => {
      const answer = await rawRequest(server.url, { path, headers: { ...UPGRADE, ...SPANISH } });
      expect(answer.headers['content-type'], path).toBe('application/json; charset=utf-8');
      return { status: answer.status, body: JSON.parse(answer.body) };
    };
    // engine.io upgraded this one, then wrote its refusal into the WebSocket.
    expect(await refused('/socket.io/?EIO=3&transport=websocket')).toEqual({
      status: 400,
      body: { detail: 'Esta versión de la app ya no puede conectarse: recarga la página.' },
    });
    expect(await refused('/socket.io/?EIO=4&transport=polling')).toEqual({
      status: 400,
      body: { detail: 'Esta dirección solo admite conexiones WebSocket.' },
    });
    expect(await refused('/socket.io/?EIO=4&transport=websocket&sid=nobody')).toEqual({
      status: 400,
      body: { detail: 'Esta conexión ya no está abierta: vuelve a conectarte.' },
    });
  });

  it('refuses a WebSocket handshake with a broken key, version or subprotocol in the envelope, not in bare text', async () => {
    const path = '/socket.io/?EIO=4&transport=websocket';
    const brokenHeaders: Array<Record<string, string | null>> = [
      { 'sec-websocket-key': 'not-a-key' },
      { 'sec-websocket-key': null },
      { 'sec-websocket-version': '99' },
      { 'sec-websocket-protocol': 'a,,b' },
      { upgrade: 'h2c' },
    ];
    for (const broken of brokenHeaders) {
      const answer = await rawRequest(server.url, { path, headers: { ...UPGRADE, ...SPANISH, ...broken } });
      const name = JSON.stringify(broken);
      expect(answer.status, name).toBe(400);
      expect(answer.headers['content-type'], name).toBe('application/json; charset=utf-8');
      expect(answer.headers['x-content-type-options'], name).toBe('nosniff');
      expect(JSON.parse(answer.body), name).toEqual({ detail: 'Solicitud mal formada.' });
    }
    const version = await rawRequest(server.url, { path, headers: { ...UPGRADE, 'sec-websocket-version': '99' } });
    expect(version.headers['sec-websocket-version']).toBe('13, 8');
    expect(JSON.parse(version.body)).toEqual({ detail: 'Malformed request.' });
  });

  it('answers an upgrade to any other path with the envelope’s 404, which engine.io left unanswered', async () => {
    for (const path of ['/', '/api/events/', '/socket.io', '/socket.iox/?EIO=4&transport=websocket']) {
      // engine.io ended these a second later without a byte, which `rawRequest` takes for no answer.
      const answer = await rawRequest(server.url, { path, headers: { ...UPGRADE, ...SPANISH } });
      expect(answer.status, path).toBe(404);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(JSON.parse(answer.body)).toEqual({ detail: 'No encontrado.' });
    }
    const english = await rawRequest(server.url, { path: '/api/events/', headers: UPGRADE });
    expect(JSON.parse(english.body)).toEqual({ detail: 'Not found.' });
  });

  it('still lets a real client connect and talk', async () => {
    const user = await makeCompletedUser(server);
    const socket = await connect(server.url, user.token, { auth: { language: 'es' } });
    try {
      const ack = await socket.timeout(5000).emitWithAck('message:send', { conversation_id: 1, content: '', client_id: 'not-a-uuid' });
      expect(ack).toMatchObject({ ok: false, error: { code: 'validation', fields: { client_id: ['Debe ser un UUID válido.'] } } });
    } finally {
      socket.close();
    }
    await expect(connect(server.url, 'not-a-real-token')).rejects.toThrow('unauthorized');
  });
});
