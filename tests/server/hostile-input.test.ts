import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { authTokens, profiles, uploads, users } from '../../server/db/schema';
import { MAX_UPLOAD_BYTES } from '../../shared/constants';
import { makeCompletedUser, type TestUser, validProfile } from '../helpers/factories';
import { imageBytes } from '../helpers/images';
import { rawRequest } from '../helpers/raw-http';
import { backends, serverPerSuite } from '../helpers/server';

const MB = 1024 * 1024;

interface Attack {
  method: string;
  path: string;
  /** 'user' sends the test user's token; a string is sent as the whole Authorization header. */
  auth?: 'user' | { header: string };
  json?: unknown;
  body?: string | Buffer | FormData;
  /** Null: not sent (raw requests only). */
  headers?: Record<string, string | null>;
  /** Byte-exact request: for header values `fetch` refuses to send, or headers it always sends. */
  raw?: boolean;
}

type Row = [name: string, attack: () => Attack | Promise<Attack>, status: number | number[]];

const json = (): Record<string, string> => ({ 'content-type': 'application/json' });
const big = (bytes: number) => 'x'.repeat(bytes);
const multipart = (bytes: Buffer, field = 'file') => {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'x.png');
  return form;
};
const pngPadded = async (total: number) => {
  const png = await imageBytes('png');
  return Buffer.concat([png, Buffer.alloc(total - png.length, 1)]);
};

const wrongTypes = { first_name: 1, last_name: ['x'], username: { a: 1 }, password: true, password2: null };
const wrongProfile = {
  name: 1,
  bio: ['b'],
  gender: 5,
  date_of_birth: { year: 1990 },
  image: 7,
  image2: true,
  genders_to_match: 'male',
  min_matching_age: '18',
  max_matching_age: [],
};

const rows: Row[] = [
  // Broken JSON.
  ['login with truncated JSON', () => ({ method: 'POST', path: '/api/auth/', body: '{"username": "a@b.co", "password": ', headers: json() }), 400],
  ['register with a stray bracket', () => ({ method: 'POST', path: '/api/auth/register/', body: '{]', headers: json() }), 400],
  ['profile with trailing garbage', () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', body: '{} x', headers: json() }), 400],
  ['profile with single quotes', () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', body: "{'name': 'x'}", headers: json() }), 400],
  ['login with an empty JSON body', () => ({ method: 'POST', path: '/api/auth/', body: '', headers: json() }), 400],
  ['login with __proto__', () => ({ method: 'POST', path: '/api/auth/', body: '{"__proto__": {"admin": true}, "username": "a@b.co", "password": "x"}', headers: json() }), 400],
  ['register with constructor.prototype', () => ({ method: 'POST', path: '/api/auth/register/', body: '{"constructor": {"prototype": {"admin": true}}}', headers: json() }), 400],
  // Over the 64 KB cap on JSON bodies: refused before it is parsed.
  ['login nested 100 000 deep', () => ({ method: 'POST', path: '/api/auth/', body: `${'['.repeat(100_000)}${']'.repeat(100_000)}`, headers: json() }), 413],
  ['profile nested 100 000 deep', () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', body: `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`, headers: json() }), 400],

  // JSON that is not an object.
  ['login with a JSON array', () => ({ method: 'POST', path: '/api/auth/', json: [] }), 400],
  ['register with a JSON string', () => ({ method: 'POST', path: '/api/auth/register/', json: 'hello' }), 400],
  ['register with a JSON number', () => ({ method: 'POST', path: '/api/auth/register/', json: 42 }), 400],
  ['profile with JSON null', () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', body: 'null', headers: json() }), 400],
  ['profile with a JSON array', () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: [{ name: 'x' }] }), 400],
  ['profile with JSON true', () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: true }), 400],

  // Wrong types for every field.
  ['register with every field of the wrong type', () => ({ method: 'POST', path: '/api/auth/register/', json: wrongTypes }), 400],
  ['login with every field of the wrong type', () => ({ method: 'POST', path: '/api/auth/', json: { username: 12, password: { a: 1 } } }), 400],
  ['profile with every field of the wrong type', () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: wrongProfile }), 400],
  ['profile with a form instead of JSON', () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', body: 'name=x&bio=y', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415],
  ['login as text/plain', () => ({ method: 'POST', path: '/api/auth/', body: 'username=a', headers: { 'content-type': 'text/plain' } }), 415],
  ['a message as text/plain', () => ({ method: 'POST', path: '/api/conversations/1/messages/', auth: 'user', body: '{"content":"hi"}', headers: { 'content-type': 'text/plain' } }), 415],
  // A form is a cross-site "simple" request: only the checkout's form post takes one.
  ['a registration as a form', () => ({ method: 'POST', path: '/api/auth/register/', body: 'first_name=F&last_name=G&username=form%40example.com&password=Quiet-Party-Phrase-77&password2=Quiet-Party-Phrase-77', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415],
  ['a login as a form', () => ({ method: 'POST', path: '/api/auth/', body: 'username=a%40b.co&password=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415],
  ['a password reset as a form', () => ({ method: 'POST', path: '/api/auth/password-reset/', body: 'email=a%40b.co', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415],
  ['login as XML', () => ({ method: 'POST', path: '/api/auth/', body: '<login/>', headers: { 'content-type': 'application/xml' } }), 415],
  ['profile as multipart', async () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', body: multipart(await imageBytes('png')) }), 415],
  ['a reaction as multipart', async () => ({ method: 'POST', path: '/api/matching/', auth: 'user', body: multipart(await imageBytes('png')) }), 415],

  ['login as JSON in UTF-16', () => ({ method: 'POST', path: '/api/auth/', body: Buffer.from('{"username":"a@b.co","password":"x"}', 'utf16le'), headers: { 'content-type': 'application/json; charset=utf-16' } }), [400, 415]],
  ['login as gzip that is not gzip', () => ({ method: 'POST', path: '/api/auth/', body: 'not gzip at all', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }), [400, 415]],
  ['an upload with a broken multipart body', () => ({ method: 'POST', path: '/api/uploads/', auth: 'user', body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc', headers: { 'content-type': 'multipart/form-data; boundary=xyz' } }), 400],
  ['an upload with no boundary', () => ({ method: 'POST', path: '/api/uploads/', auth: 'user', body: 'abc', headers: { 'content-type': 'multipart/form-data' } }), [400, 415]],
  ['an upload with an empty multipart body', () => ({ method: 'POST', path: '/api/uploads/', auth: 'user', body: '--xyz--\r\n', headers: { 'content-type': 'multipart/form-data; boundary=xyz' } }), 400],
  [
    'an upload with 1000 fields before the file',
    async () => {
      const form = new FormData();
      for (let i = 0; i < 1000; i++) form.append(`f${i}`, 'x');
      form.append('file', new Blob([new Uint8Array(Buffer.from('not an image'))], { type: 'image/png' }), 'x.png');
      return { method: 'POST', path: '/api/uploads/', auth: 'user', body: form };
    },
    [400, 413],
  ],
  [
    'an upload whose first file is not an image and whose second is',
    async () => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(Buffer.from('not an image'))], { type: 'image/png' }), 'x.png');
      form.append('file', new Blob([new Uint8Array(await imageBytes('png'))], { type: 'image/png' }), 'y.png');
      return { method: 'POST', path: '/api/uploads/', auth: 'user', body: form };
    },
    [400, 413],
  ],

  // Far too much.
  ['a 30 MB login', () => ({ method: 'POST', path: '/api/auth/', json: { username: 'a@b.co', password: big(30 * MB) } }), 413],
  ['a 30 MB registration', () => ({ method: 'POST', path: '/api/auth/register/', json: { ...wrongTypes, first_name: big(30 * MB) } }), 413],
  ['a 30 MB logout', () => ({ method: 'POST', path: '/api/auth/logout/', auth: 'user', json: { pad: big(30 * MB) } }), 413],
  ['a 30 MB upload', async () => ({ method: 'POST', path: '/api/uploads/', auth: 'user', body: multipart(await pngPadded(30 * MB)) }), 413],
  ['a 30 MB reaction', () => ({ method: 'POST', path: '/api/matching/', auth: 'user', json: { response: 'like', other: 1, pad: big(30 * MB) } }), 413],
  ['a 30 MB message', () => ({ method: 'POST', path: '/api/conversations/1/messages/', auth: 'user', json: { content: big(30 * MB) } }), 413],
  ['a 30 MB Google login', () => ({ method: 'POST', path: '/api/auth/google/login/', json: { access_token: big(30 * MB) } }), 413],
  ['a 30 MB checkout form', () => ({ method: 'POST', path: '/api/payments/stripe/create-checkout-session/', body: `lookup_key=basic_yearly&email=${big(30 * MB)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 413],
  ['a 90 MB profile', () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: { name: big(90 * MB) } }), 413],
  [
    'a profile with six data: URIs over 10 MB each',
    async () => {
      // Six photos, not one six times: the same one twice is refused as such before any is decoded.
      const sizes = [1, 2, 3, 4, 5, 6].map((extra) => MAX_UPLOAD_BYTES + extra);
      const [image, image2, image3, image4, image5, image6] = await Promise.all(sizes.map(async (size) => `data:image/png;base64,${(await pngPadded(size)).toString('base64')}`));
      const profile = await validProfile({ image, image2, image3, image4, image5, image6 });
      return { method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: profile };
    },
    413,
  ],
  ['a 100 000-character username at login', () => ({ method: 'POST', path: '/api/auth/', json: { username: `${big(100_000)}@b.co`, password: 'x' } }), 413],
  ['a 100 000-character username at registration', () => ({ method: 'POST', path: '/api/auth/register/', json: { first_name: 'A', last_name: 'B', username: `${big(100_000)}@b.co`, password: 'Long-Enough-Phrase-1', password2: 'Long-Enough-Phrase-1' } }), 413],
  ['a 60 000-character username at login', () => ({ method: 'POST', path: '/api/auth/', json: { username: `${big(60_000)}@b.co`, password: 'x' } }), 400],
  ['a 20 000-character bio', () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: { bio: big(20_000) } }), 400],
  ['a 100 000-item genders list', () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: { genders_to_match: Array(100_000).fill('male') } }), 400],

  // Null bytes and odd text.
  ['a null byte in a registration name', () => ({ method: 'POST', path: '/api/auth/register/', json: { first_name: 'Al\u0000ex', last_name: 'B', username: 'nul-first@example.com', password: 'Long-Enough-Phrase-1', password2: 'Long-Enough-Phrase-1' } }), 400],
  ['a null byte in a registration e-mail', () => ({ method: 'POST', path: '/api/auth/register/', json: { first_name: 'A', last_name: 'B', username: 'nul\u0000mail@example.com', password: 'Long-Enough-Phrase-1', password2: 'Long-Enough-Phrase-1' } }), 400],
  ['a null byte in a login e-mail', () => ({ method: 'POST', path: '/api/auth/', json: { username: 'a\u0000@b.co', password: 'whatever' } }), 400],
  ['a null byte in a password', () => ({ method: 'POST', path: '/api/auth/register/', json: { first_name: 'A', last_name: 'B', username: 'nul-pw@example.com', password: 'Long-Enough\u0000Phrase-1', password2: 'Long-Enough\u0000Phrase-1' } }), 400],
  ['a null byte in a profile name', async () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: await validProfile({ name: 'Ana\u0000' }) }), 400],
  ['a null byte in a bio', async () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: await validProfile({ bio: '\u0000\u0000\u0000' }) }), 400],
  ['SQL in the login e-mail', () => ({ method: 'POST', path: '/api/auth/', json: { username: "' OR 1=1; DROP TABLE users; --", password: 'x' } }), 400],
  ['a data: URI that is not base64', async () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: await validProfile({ image: 'data:image/png;base64,@@@not-base64@@@' }) }), 400],
  ['a javascript: URL as image', async () => ({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: await validProfile({ image: 'javascript:alert(1)' }) }), 400],

  // Bogus ids.
  ...['abc', '-1', '0', '99999999999', '1e3', '0x10', '1.0', '%20 1', '%00', '1;DROP%20TABLE%20users', '%F0%9F%8E%89'].map(
    (id): Row => [`profile id ${decodeURIComponent(id.replace('%00', '(nul)'))}`, () => ({ method: 'GET', path: `/api/users/${id}/profile/`, auth: 'user' }), 404],
  ),

  // Numbers in query strings are plain digits, as ids in paths are: not 10, 16, 5 or 0.
  ...['limit=1e1', 'limit=0x10', 'limit=%205', 'limit=5.0', 'limit=', 'after=', 'after=-1', 'after=1e3'].map(
    (query): Row => [`a list asked with ?${query}`, () => ({ method: 'GET', path: `/api/conversations/1/messages/?${query}`, auth: 'user' }), 400],
  ),
  ['a page asked with ?limit=1e1', () => ({ method: 'GET', path: '/api/conversations/started/?limit=1e1', auth: 'user' }), 400],

  // Paths the router refuses before any route: escapes that are not UTF-8, a parameter over 100 characters.
  ...['/api/users/%C0/profile/', '/api/conversations/%FF/messages/', '/api/events/%C0%AF/', '/media/%E0%A4', '/%C0', `/api/users/${'1'.repeat(101)}/profile/`].map(
    (path): Row => [`the path ${path.length > 40 ? `${path.slice(0, 37)}…` : path}`, () => ({ method: 'GET', path, auth: 'user' }), 404],
  ),

  // Junk tokens.
  ['an empty token', () => ({ method: 'GET', path: '/api/users/me/', auth: { header: 'Token ' } }), 401],
  ['the bare word Token', () => ({ method: 'GET', path: '/api/users/me/', auth: { header: 'Token' } }), 401],
  ['a Bearer token', () => ({ method: 'GET', path: '/api/users/me/', auth: { header: 'Bearer x' } }), 401],
  ['Basic credentials', () => ({ method: 'GET', path: '/api/users/me/', auth: { header: `Basic ${Buffer.from('a:b').toString('base64')}` } }), 401],
  ['a token with spaces inside', () => ({ method: 'GET', path: '/api/users/me/', auth: { header: 'Token abc def' } }), 401],
  ['an 8 KB token', () => ({ method: 'GET', path: '/api/users/me/', auth: { header: `Token ${big(8000)}` } }), 401],
  ['a unicode token', () => ({ method: 'GET', path: '/api/users/me/', auth: { header: 'Token ñandú-🎉-токен' }, raw: true }), 401],
  ['a unicode token at logout', () => ({ method: 'POST', path: '/api/auth/logout/', auth: { header: 'Token 🎉' }, raw: true }), 401],
  ['a 20 KB token, past the header limit', () => ({ method: 'GET', path: '/api/users/me/', auth: { header: `Token ${big(20_000)}` }, raw: true }), 431],
  ['a 100 KB cookie', () => ({ method: 'GET', path: '/api/users/me/', auth: 'user', headers: { cookie: `csrftoken=${big(100_000)}` }, raw: true }), 431],
  ['a request line with a space in the path', () => ({ method: 'GET', path: '/api/users/me/ x', auth: 'user', raw: true }), 400],
  ['an invalid header name', () => ({ method: 'GET', path: '/api/users/me/', auth: 'user', headers: { 'bad header': 'x' }, raw: true }), 400],
  ['an HTTP/1.1 request with no Host header', () => ({ method: 'GET', path: '/api/users/me/', auth: 'user', headers: { host: null }, raw: true }), 400],
  ['a POST with no Host header', () => ({ method: 'POST', path: '/api/auth/', headers: { host: null, ...json() }, body: '{}', raw: true }), 400],
  ['an 8 KB token at upload', async () => ({ method: 'POST', path: '/api/uploads/', auth: { header: `Token ${big(8000)}` }, body: multipart(await imageBytes('png')) }), 401],

  // Unknown routes and wrong methods.
  ['an unknown API route', () => ({ method: 'GET', path: '/api/nothing-here/', auth: 'user' }), 404],
  ['a POST to an unknown API route', () => ({ method: 'POST', path: '/api/users/me/delete-everything/', auth: 'user', json: {} }), 404],
  ['DELETE on the current user without a confirmation', () => ({ method: 'DELETE', path: '/api/users/me/', auth: 'user' }), 400],
  ['DELETE on the current user with a wrong password', () => ({ method: 'DELETE', path: '/api/users/me/', auth: 'user', json: { password: 'not-it' } }), 400],
  ['DELETE on the current user with a list', () => ({ method: 'DELETE', path: '/api/users/me/', auth: 'user', json: ['DELETE'] }), 400],
  ['PUT on the current user', () => ({ method: 'PUT', path: '/api/users/me/', auth: 'user', json: {} }), 405],
  ['PATCH on the profile', () => ({ method: 'PATCH', path: '/api/users/me/profile/', auth: 'user', json: { name: 'x' } }), 405],
  ['GET on login', () => ({ method: 'GET', path: '/api/auth/' }), 405],
  ['PUT on uploads', () => ({ method: 'PUT', path: '/api/uploads/', auth: 'user', json: {} }), 405],
  ['DELETE on another profile', () => ({ method: 'DELETE', path: '/api/users/1/profile/', auth: 'user' }), 405],
];

const isEnvelope = (body: unknown) => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const entries = Object.entries(body);
  if (entries.length === 1 && entries[0]![0] === 'detail') return typeof entries[0]![1] === 'string';
  return (
    entries.length > 0 &&
    entries.every(([, messages]) => Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string'))
  );
};

describe.each(backends)('hostile input on %s', (backend) => {
  const server = serverPerSuite({ backend });
  let user: TestUser;

  /** Everything stored that a request could change. Activity times move on any request and are left out. */
  async function snapshot() {
    const db = server.app.db;
    const mediaDir = path.join(server.config.dataDir, 'media');
    const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return {
      users: (await db.select().from(users)).sort((a, b) => a.id - b.id),
      profiles: (await db.select().from(profiles))
        .map(({ lastActiveAt: _, ...row }) => row)
        .sort((a, b) => a.userId - b.userId),
      tokens: (await db.select().from(authTokens)).sort((a, b) => byKey(a.tokenHash, b.tokenHash)),
      uploads: (await db.select().from(uploads)).sort((a, b) => byKey(a.key, b.key)),
      files: existsSync(mediaDir) ? (await readdir(mediaDir)).sort() : [],
    };
  }

  async function send(attack: Attack) {
    const headers: Record<string, string | null> = { ...attack.headers };
    if (attack.auth === 'user') headers.authorization = `Token ${user.token}`;
    else if (attack.auth) headers.authorization = attack.auth.header;
    let body = attack.body;
    if (attack.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(attack.json);
    }
    if (attack.raw) {
      if (body instanceof FormData) throw new Error('raw requests take text bodies');
      const response = await rawRequest(server.url, { method: attack.method, path: attack.path, headers, body });
      return { status: response.status, text: response.body };
    }
    const payload = Buffer.isBuffer(body) ? new Uint8Array(body) : body;
    const sent = Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== null);
    if (sent.length < Object.keys(headers).length) throw new Error('only raw requests leave a header out');
    const response = await fetch(`${server.url}${attack.path}`, { method: attack.method, headers: sent, body: payload });
    return { status: response.status, text: await response.text() };
  }

  beforeAll(async () => {
    // Someone with a complete profile and an upload, so that there is data to damage.
    user = await makeCompletedUser(server, { name: 'Target' });
    await makeCompletedUser(server, { name: 'Bystander' });
  });

  it.each(rows)('%s → 4xx in the envelope, nothing stored changes', async (_name, make, expected) => {
    const before = await snapshot();
    const response = await send(await make());
    const statuses = Array.isArray(expected) ? expected : [expected];
    expect(statuses, response.text.slice(0, 300)).toContain(response.status);
    const body: unknown = JSON.parse(response.text);
    expect(isEnvelope(body), response.text.slice(0, 300)).toBe(true);
    expect(await snapshot()).toEqual(before);
    // The server is still fine afterwards.
    const me = await fetch(`${server.url}/api/users/me/`, { headers: { authorization: `Token ${user.token}` } });
    expect(me.status).toBe(200);
  });

  it('answers a path the router refuses as any unknown path: the envelope in the reader’s language, every header', async () => {
    const known = await fetch(`${server.url}/api/users/99999/profile/`, { headers: { authorization: `Token ${user.token}`, 'accept-language': 'es' } });
    const refused = await fetch(`${server.url}/api/users/%C0/profile/`, { headers: { authorization: `Token ${user.token}`, 'accept-language': 'es' } });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual(await known.json());
    for (const name of ['content-type', 'content-security-policy', 'x-content-type-options', 'strict-transport-security']) {
      expect(refused.headers.get(name), name).toBe(known.headers.get(name));
    }
  });

  it('answers a wrong method with 405, the methods allowed and DRF’s text', async () => {
    const response = await fetch(`${server.url}/api/users/me/profile/`, { method: 'DELETE', headers: { authorization: `Token ${user.token}` } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, PUT');
    expect(await response.json()).toEqual({ detail: 'Method "DELETE" not allowed.' });
  });

  it('answers a wrong method on a fixed path that a parametric route would take as its id with 405, not 404', async () => {
    for (const [method, path, allow] of [
      ['GET', '/api/events/leave/', 'POST'],
      ['PATCH', '/api/events/mine/', 'GET'],
      ['DELETE', '/api/events/current/', 'GET'],
      ['DELETE', '/api/conversations/started/', 'GET'],
      ['DELETE', '/api/conversations/empty/?cursor=x', 'GET'],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, { method, headers: { authorization: `Token ${user.token}`, 'accept-language': 'es' } });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow'), `${method} ${path}`).toBe(allow);
      expect(await response.json()).toEqual({ detail: `Método «${method}» no permitido.` });
    }
    // A parametric route's own bad id is still no such thing.
    const unknown = await fetch(`${server.url}/api/events/nothing/`, { method: 'PATCH', headers: { authorization: `Token ${user.token}` } });
    expect(unknown.status).toBe(404);
  });

  it('answers a list of many wrong genders with one message, not one per item', async () => {
    // As many as fit the usual 64 KB: a longer list is refused before it is parsed (below).
    const body = { ...(await validProfile()), genders_to_match: Array(20_000).fill(5) };
    const response = await send({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: body });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toEqual({ genders_to_match: ['Each gender can be selected once.'] });
  });

  it('answers a negative number in a query or a body with its range, as DRF does, not as no integer at all', async () => {
    const page = await send({ method: 'GET', path: '/api/conversations/started/?limit=-1', auth: 'user' });
    expect([page.status, JSON.parse(page.text)]).toEqual([400, { limit: ['Ensure this value is greater than or equal to 1.'] }]);
    const catchUp = await send({ method: 'GET', path: '/api/conversations/1/messages/?after=-5', auth: 'user' });
    expect([catchUp.status, JSON.parse(catchUp.text)]).toEqual([400, { after: ['Ensure this value is greater than or equal to 0.'] }]);
    const reaction = await send({ method: 'POST', path: '/api/matching/', auth: 'user', json: { response: 'like', other: '-3' } });
    expect([reaction.status, JSON.parse(reaction.text)]).toEqual([400, { other: ['Ensure this value is greater than or equal to 1.'] }]);
    // A path's id is still no such thing.
    expect((await send({ method: 'GET', path: '/api/users/-1/profile/', auth: 'user' })).status).toBe(404);
  });

  it('answers a number far out of range with its range, not also with the largest safe integer', async () => {
    const profile = await send({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: await validProfile({ min_matching_age: 1e308, max_matching_age: -1e308 }) });
    expect(profile.status).toBe(400);
    expect(JSON.parse(profile.text)).toEqual({
      min_matching_age: ['Ensure this value is less than or equal to 100.'],
      max_matching_age: ['Ensure this value is greater than or equal to 18.'],
    });
    const page = await send({ method: 'GET', path: '/api/conversations/started/?limit=9999999999', auth: 'user' });
    expect(page.status).toBe(400);
    expect(Object.values(JSON.parse(page.text) as Record<string, string[]>).map((texts) => texts.length)).toEqual([1]);
    // A whole number is still asked for where the value is in range.
    const half = await send({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: await validProfile({ min_matching_age: 18.5 }) });
    expect(JSON.parse(half.text)).toEqual({ min_matching_age: ['A valid integer is required.'] });
  });

  it('keeps a name on one line: its line breaks and runs of spaces are one space, as it shows everywhere', async () => {
    const registered = await send({
      method: 'POST',
      path: '/api/auth/register/',
      json: { first_name: 'Ana\r\n\r\nhttps://evil.example/verify', last_name: 'de \t la  Cruz', username: 'lines@example.com', password: 'Long-Enough-Phrase-1', password2: 'Long-Enough-Phrase-1' },
    });
    expect(registered.status, registered.text).toBe(201);
    expect(JSON.parse(registered.text)).toMatchObject({ first_name: 'Ana https://evil.example/verify', last_name: 'de la Cruz' });
    const saved = await send({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: await validProfile({ name: 'Ana\n\nMaría', bio: 'Line one.\nLine two.' }) });
    expect(saved.status, saved.text).toBe(200);
    // A bio keeps its lines: it is shown as written.
    expect([JSON.parse(saved.text).name, JSON.parse(saved.text).bio]).toEqual(['Ana María', 'Line one.\nLine two.']);
  });

  it('names each field that holds half of a surrogate pair, and keeps whole ones', async () => {
    const response = await send({
      method: 'POST',
      path: '/api/auth/register/',
      json: { first_name: 'Ana \ud83d', last_name: '\ude00', username: 'half@example.com', password: 'Long-Enough-Phrase-1', password2: 'Long-Enough-Phrase-1' },
    });
    expect(response.status).toBe(400);
    const half = ['This text holds half of a character: type it again.'];
    expect(JSON.parse(response.text)).toEqual({ first_name: half, last_name: half });
    const message = await send({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: await validProfile({ bio: 'a\udfff' }) });
    expect(JSON.parse(message.text)).toEqual({ bio: half });
    const whole = await send({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: await validProfile({ bio: 'Party 😀 time' }) });
    expect(whole.status).toBe(200);
    expect(JSON.parse(whole.text).bio).toBe('Party 😀 time');
  });

  it('refuses a body whose bytes are not UTF-8, rather than store its text with U+FFFD in it', async () => {
    const before = JSON.parse((await send({ method: 'GET', path: '/api/users/me/profile/', auth: 'user' })).text);
    const json = JSON.stringify(await validProfile({ bio: 'abXYcd' }));
    for (const bad of [[0xff], [0xed, 0xa0, 0x80], [0xc3]]) {
      const at = json.indexOf('XY');
      const body = Buffer.concat([Buffer.from(json.slice(0, at)), Buffer.from(bad), Buffer.from(json.slice(at + 2))]);
      const response = await send({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', headers: { 'content-type': 'application/json' }, body });
      expect(response.status, bad.join()).toBe(400);
      expect(JSON.parse(response.text)).toEqual({ non_field_errors: ['This text holds half of a character: type it again.'] });
    }
    expect(JSON.parse((await send({ method: 'GET', path: '/api/users/me/profile/', auth: 'user' })).text)).toEqual(before);
    // Bytes of whole characters, of every length, go through.
    const whole = await send({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from(JSON.stringify(await validProfile({ bio: 'ñ € 😀' }))) });
    expect(whole.status, whole.text).toBe(200);
    expect(JSON.parse(whole.text).bio).toBe('ñ € 😀');
  });

  it('refuses a large body of tiny values before parsing it, in the reader’s language, in a short answer', async () => {
    // The profile's save takes 84 MB for its photos; parsing megabytes of tiny values held the event
    // loop for seconds, and the 400 named every key. Refused unparsed: the answer is the scan's, not
    // a field map of what was parsed, nor the schema's refusal of a million genders.
    const photos = { ...(await validProfile()), image: `data:image/png;base64,${'A'.repeat(MB)}` };
    const bodies = [
      `{${Array.from({ length: 300_000 }, (_, i) => `"k${i}":1`).join(',')}}`,
      `${'['.repeat(MB)}${']'.repeat(MB)}`,
      JSON.stringify({ ...photos, genders_to_match: Array(1_000_000).fill(5) }),
    ];
    for (const body of bodies) {
      for (const [language, detail] of [
        ['en', 'Request body holds too many values.'],
        ['es', 'El contenido de la solicitud tiene demasiados valores.'],
      ]) {
        const response = await send({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', headers: { ...json(), 'accept-language': language! }, body });
        expect([response.status, JSON.parse(response.text)]).toEqual([400, { detail }]);
      }
    }
    // A photo's base64, escaped quotes in a string, and a 400 of the schema's still get through the scan.
    const quoted = await send({ method: 'PUT', path: '/api/users/me/profile/', auth: 'user', json: { ...photos, bio: '\\"{[,:'.repeat(20_000), gender: 'x' } });
    expect([quoted.status, Object.keys(JSON.parse(quoted.text)).sort()]).toEqual([400, ['bio', 'gender']]);
  });

  it('names at most 50 fields in a 400, however many the body refuses', async () => {
    const fields = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, '\u0000']));
    const response = await send({ method: 'POST', path: '/api/auth/register/', json: fields });
    expect(response.status).toBe(400);
    expect(Object.keys(JSON.parse(response.text))).toHaveLength(50);
  });

  it('names each field that holds a null character', async () => {
    const response = await send({
      method: 'POST',
      path: '/api/auth/register/',
      json: { first_name: 'A\u0000', last_name: 'B', username: 'ok@example.com', password: 'x\u0000y', password2: ['\u0000'] },
    });
    expect(response.status).toBe(400);
    const nul = ['Null characters are not allowed.'];
    expect(JSON.parse(response.text)).toEqual({ first_name: nul, password: nul, password2: nul });
  });

  it('takes a JSON content type with no body as no body: a route that takes none answers, one that needs one answers as to no body', async () => {
    const bystander = await makeCompletedUser(server, { name: 'Named JSON' });
    const empty = { body: '', headers: json() };
    expect((await send({ method: 'POST', path: `/api/users/${bystander.id}/block/`, auth: 'user', ...empty })).status).toBe(204);
    expect((await send({ method: 'DELETE', path: `/api/users/${bystander.id}/block/`, auth: 'user', ...empty })).status).toBe(204);
    const login = await send({ method: 'POST', path: '/api/auth/', ...empty });
    const bare = await send({ method: 'POST', path: '/api/auth/' });
    expect([login.status, login.text]).toEqual([400, bare.text]);
    expect(JSON.parse(login.text)).toEqual({ non_field_errors: ['This field may not be null.'] });
  });
});
