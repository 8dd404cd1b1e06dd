import net from 'node:net';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { likesGiven, users } from '../../server/db/schema';
import { FREE_DAILY_LIKES } from '../../shared/constants';
import { languageOf, SERVER_MESSAGES } from '../../shared/i18n/server-messages';
import { makeCompletedUser, makeUser, validProfile } from '../helpers/factories';
import { client } from '../helpers/http';
import { rawRequest } from '../helpers/raw-http';
import { serverPerSuite } from '../helpers/server';
import { connect, waitUntil } from '../helpers/socket';

const SPANISH = { 'accept-language': 'es' };

describe('server messages in the language the request asks for', () => {
  const server = serverPerSuite();

  it('writes field errors in Spanish for Accept-Language: es, and in English otherwise', async () => {
    const api = client(server.url);
    const body = { first_name: 'Ana', last_name: 'Ruiz', username: 'not-an-email', password: '12345678', password2: '87654321' };
    const spanish = await api.post('/api/auth/register/', { json: body, headers: { 'accept-language': 'es-ES,es;q=0.9,en;q=0.8' } });
    expect(spanish.status).toBe(400);
    expect(spanish.body).toEqual({
      username: ['Introduce un correo electrónico válido.'],
      password: ['Esta contraseña es demasiado común.', 'La contraseña no puede ser solo números.'],
      password2: ['Las dos contraseñas no coinciden.'],
    });
    const english = await api.post('/api/auth/register/', { json: body });
    expect(english.body).toEqual({
      username: ['Enter a valid e-mail address.'],
      password: ['This password is too common.', 'This password is entirely numeric.'],
      password2: ['The two passwords do not match.'],
    });
    // A language the server does not speak: English.
    const french = await api.post('/api/auth/register/', { json: body, headers: { 'accept-language': 'fr-FR' } });
    expect(french.body).toEqual(english.body);
  });

  it('writes the profile rules in Spanish, the messages a schema names and the ones zod makes alike', async () => {
    const user = await makeUser(server);
    const profile: Record<string, unknown> = { ...(await validProfile()), gender: null, name: 'n'.repeat(51), genders_to_match: [] };
    delete profile.image;
    delete profile.date_of_birth;
    const response = await client(server.url).put('/api/users/me/profile/', { token: user.token, json: profile, headers: SPANISH });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      name: ['Este campo no puede tener más de 50 caracteres.'],
      gender: ['Este campo no puede ser nulo.'],
      date_of_birth: ['Selecciona una fecha de nacimiento'],
      image: ['Sube una foto de perfil principal'],
      genders_to_match: ['Selecciona al menos un género.'],
    });
  });

  it('writes details in Spanish, and keeps a machine code as it is', async () => {
    const api = client(server.url);
    const user = await makeCompletedUser(server);
    expect((await api.get('/api/users/me/', { headers: SPANISH })).body).toEqual({ detail: 'No se han enviado credenciales.' });
    expect((await api.get('/api/conversations/999999/', { token: user.token, headers: SPANISH })).body).toEqual({ detail: 'No encontrado.' });
    // A path no route has, and one that has routes under other methods only.
    expect((await api.get('/api/no-such-path/', { headers: SPANISH })).body).toEqual({ detail: 'No encontrado.' });
    expect((await api.get('/api/auth/logout/', { headers: SPANISH })).body).toEqual({ detail: 'Método «GET» no permitido.' });
    const checkout = await api.post('/api/payments/stripe/create-checkout-session/', { token: user.token, json: { lookup_key: 'gold' }, headers: SPANISH });
    expect(checkout.body).toEqual({ lookup_key: ['Este plan no existe.'] });
  });

  it('writes the account’s, the safety rules’ and the plan’s own details in Spanish too', async () => {
    const api = client(server.url);
    const user = await makeCompletedUser(server);
    const detail = async (answer: Promise<{ body: { detail?: string } }>) => (await answer).body.detail;
    const field = async (answer: Promise<{ body: Record<string, string[]> }>, name: string) => (await answer).body[name];
    expect(await detail(api.post('/api/auth/verify-email/resend/', { token: user.token, headers: SPANISH }))).toBe(
      'Te hemos enviado un nuevo enlace para confirmar tu correo electrónico.',
    );
    expect(await detail(api.post('/api/auth/password-reset/', { json: { email: user.email }, headers: SPANISH }))).toBe(
      'Si existe una cuenta con este correo, te hemos enviado un enlace para restablecer la contraseña.',
    );
    expect(await field(api.post(`/api/users/${user.id}/block/`, { token: user.token, headers: SPANISH }), 'non_field_errors')).toEqual([
      'No puedes bloquear tu propia cuenta.',
    ]);
    expect(await field(api.post('/api/reports/', { token: user.token, json: { user_id: user.id, reason: 'spam' }, headers: SPANISH }), 'user_id')).toEqual([
      'No puedes denunciar tu propia cuenta.',
    ]);
    expect(await detail(api.post('/api/matching/undo/', { token: user.token, headers: SPANISH }))).toBe('Esto es parte del plan de pago.');
    // The day's free likes spent (a fixture: the likes given of the last 24 hours).
    const other = await makeCompletedUser(server);
    await server.app.db.insert(likesGiven).values(
      Array.from({ length: FREE_DAILY_LIKES }, (_, index) => ({ userId: user.id, toUserId: 1_000_000 + index, givenAt: new Date(Date.now() - index * 1000) })),
    );
    const like = api.post('/api/matching/', { token: user.token, json: { response: 'like', other: other.id }, headers: SPANISH });
    expect(await detail(like)).toBe(`Has usado tus ${FREE_DAILY_LIKES} likes de las últimas 24 horas.`);
    await server.app.db.update(users).set({ bannedAt: new Date() }).where(eq(users.id, user.id));
    expect(await detail(api.post('/api/auth/', { json: { username: user.email, password: user.password }, headers: SPANISH }))).toBe(
      'Esta cuenta ha sido suspendida.',
    );
  });

  it('writes the refusals of a body too large, of a wrong type or of broken JSON in Spanish', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    const tooLarge = await api.post('/api/auth/', { json: { username: 'x'.repeat(70 * 1024) }, headers: SPANISH });
    expect(tooLarge).toMatchObject({ status: 413, body: { detail: 'El contenido de la solicitud es demasiado grande.' } });
    const text = await api.post('/api/auth/', { body: 'hola', headers: { ...SPANISH, 'content-type': 'text/plain' } });
    expect(text).toMatchObject({ status: 415, body: { detail: 'Tipo de contenido no admitido en la solicitud.' } });
    const upload = await api.post('/api/uploads/', { token: user.token, json: {}, headers: SPANISH });
    expect(upload).toMatchObject({ status: 415, body: { detail: 'Envía la imagen como multipart/form-data, en el campo «file».' } });
    const broken = await api.post('/api/auth/', { body: '{"username": ', headers: { ...SPANISH, 'content-type': 'application/json' } });
    expect(broken).toMatchObject({ status: 400, body: { detail: 'Error al leer el JSON: el contenido no es JSON válido.' } });
  });

  it('answers a request Node refuses unread in the envelope, in the language its bytes name, else in English', async () => {
    const detail = (response: { body: string }) => JSON.parse(response.body).detail;
    const cookie = `csrftoken=${'x'.repeat(20_000)}`;
    const tooLarge = await rawRequest(server.url, { path: '/api/users/me/', headers: { ...SPANISH, cookie } });
    expect(tooLarge.status).toBe(431);
    expect(detail(tooLarge)).toBe('Las cabeceras de la solicitud son demasiado grandes.');
    const brokenLine = await rawRequest(server.url, { path: '/api/users/me/ x', headers: SPANISH });
    expect(brokenLine.status).toBe(400);
    expect(detail(brokenLine)).toBe('Solicitud mal formada.');
    expect(detail(await rawRequest(server.url, { path: '/api/users/me/ x' }))).toBe('Malformed request.');

    // A client too slow to send its request (Node's own timer checks every 30 s): nothing of it was read.
    const arrived = new Promise<net.Socket>((resolve) => server.app.server.once('connection', resolve));
    const slow = net.connect({ host: '127.0.0.1', port: Number(new URL(server.url).port) });
    const answer = new Promise<string>((resolve) => {
      let text = '';
      slow.on('data', (chunk) => (text += chunk.toString('utf8')));
      slow.on('error', () => {});
      slow.on('close', () => resolve(text));
    });
    const timeout = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    server.app.server.emit('clientError', timeout, await arrived);
    const [head = '', body = ''] = (await answer).split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 /);
    expect(head).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    expect(JSON.parse(body)).toEqual({ detail: 'Request timed out.' });
  });

  it('answers a request Node refuses on a kept-alive connection in the language of the request before it there', async () => {
    // A phone's connection: a request in Spanish answered, then one too slow to come, or broken,
    // whose bytes (none read, or the broken ones) name no language.
    const refusedAfter = async (refusal: (socket: net.Socket, server: net.Socket) => void) => {
      const arrived = new Promise<net.Socket>((resolve) => server.app.server.once('connection', resolve));
      const phone = net.connect({ host: '127.0.0.1', port: Number(new URL(server.url).port) });
      let text = '';
      phone.on('data', (chunk) => (text += chunk.toString('utf8')));
      phone.on('error', () => {});
      const closed = new Promise<void>((resolve) => phone.on('close', resolve));
      phone.write(`GET /api/users/me/ HTTP/1.1\r\nHost: localhost\r\nAccept-Language: es\r\n\r\n`);
      const serverSide = await arrived;
      await waitUntil(() => text.includes('No se han enviado credenciales.'), 5000, 'the first answer');
      text = '';
      refusal(phone, serverSide);
      await closed;
      const [head = '', body = ''] = text.split('\r\n\r\n');
      return { status: Number(head.split(' ')[1]), detail: JSON.parse(body).detail };
    };
    const timeout = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    expect(await refusedAfter((_, serverSide) => server.app.server.emit('clientError', timeout, serverSide))).toEqual({
      status: 408,
      detail: 'La solicitud tardó demasiado en llegar.',
    });
    expect(await refusedAfter((phone) => phone.write('GET /api/users/me/ x HTTP/1.1\r\n\r\n'))).toEqual({ status: 400, detail: 'Solicitud mal formada.' });
  });

  it('answers an Expect it cannot meet in the envelope, in the request\'s language', async () => {
    const refused = await rawRequest(server.url, { method: 'POST', path: '/api/auth/', headers: { ...SPANISH, expect: 'bogus', 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(417);
    expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
    expect(JSON.parse(refused.body)).toEqual({ detail: 'Solo se admite «Expect: 100-continue».' });
    const english = await rawRequest(server.url, { method: 'POST', path: '/api/auth/', headers: { expect: 'bogus', 'content-type': 'application/json' }, body: '{}' });
    expect(JSON.parse(english.body)).toEqual({ detail: 'Only "Expect: 100-continue" is supported.' });
  });

  it('writes a socket ack\'s messages in the language its handshake named', async () => {
    const user = await makeCompletedUser(server);
    const socket = await connect(server.url, user.token, { auth: { language: 'es' } });
    try {
      const ack = await socket.emitWithAck('message:send', { conversation_id: 1, content: '', client_id: 'not-a-uuid' });
      expect(ack).toMatchObject({ ok: false, error: { code: 'validation', fields: { content: ['Este campo no puede estar vacío.'], client_id: ['Debe ser un UUID válido.'] } } });
    } finally {
      socket.close();
    }
  });
});

describe('the catalogue of server messages', () => {
  it('has every message in both languages, with the same placeholders', () => {
    const holes = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
    for (const [code, { en, es }] of Object.entries(SERVER_MESSAGES)) {
      expect(es, code).toBeTruthy();
      expect(holes(es), code).toEqual(holes(en));
    }
  });

  it('reads Accept-Language by preference, and falls back to English', () => {
    expect(languageOf(undefined)).toBe('en');
    expect(languageOf('es')).toBe('es');
    expect(languageOf('es-MX,es;q=0.9,en;q=0.8')).toBe('es');
    expect(languageOf('en-GB,en;q=0.9,es;q=0.8')).toBe('en');
    expect(languageOf('fr-FR,fr;q=0.9,es;q=0.5')).toBe('es');
    expect(languageOf('de,fr')).toBe('en');
    expect(languageOf('es;q=0')).toBe('en');
  });
});
