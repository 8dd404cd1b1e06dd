// @vitest-environment jsdom
/**
 * At the door every phone is behind the venue's one address: a phone that scanned the event's QR keeps
 * the pass (`lib/pending-join.ts`) and sends it with its sign-up and logins, for the server to count
 * them against the event's budget rather than the address's (tests/server/events.test.ts, "at the door").
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../client/lib/api';
import { googleLogin } from '../../client/lib/google';
import { setPendingJoin } from '../../client/lib/pending-join';

let sent: Array<{ path: string; body: Record<string, unknown> }> = [];
beforeEach(() => {
  sent = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init: RequestInit = {}) => {
    sent.push({ path: String(input), body: JSON.parse(String(init.body)) });
    return Response.json({ token: 'a-token' });
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

const signUpAndIn = async () => {
  await api.register({ first_name: 'Ana', last_name: 'Ruiz', username: 'ana@example.com', password: 'Velvet-Door-1', password2: 'Velvet-Door-1' });
  await api.login('ana@example.com', 'Velvet-Door-1');
  await googleLogin('an-access-token', null);
  return sent.map(({ path, body }) => [path, body.pass]);
};

describe('the pass kept from the scan', () => {
  it('goes with sign-up, login and Google login', async () => {
    setPendingJoin({ code: 'K7RM2Q', pass: 'the-pass', expiresAt: Date.now() + 60_000 });
    expect(await signUpAndIn()).toEqual([
      ['/api/auth/register/', 'the-pass'],
      ['/api/auth/', 'the-pass'],
      ['/api/auth/google/login/', 'the-pass'],
    ]);
  });

  it('is left out when there is none, or what is kept cannot be read', async () => {
    expect((await signUpAndIn()).map(([, pass]) => pass)).toEqual([undefined, undefined, undefined]);
    expect(sent.every(({ body }) => !('pass' in body))).toBe(true);
    sent = [];
    setPendingJoin({ code: 'K7RM2Q', expiresAt: Date.now() + 60_000 });
    localStorage.setItem('pending_event_join', '{not json');
    expect((await signUpAndIn()).map(([, pass]) => pass)).toEqual([undefined, undefined, undefined]);
  });
});
