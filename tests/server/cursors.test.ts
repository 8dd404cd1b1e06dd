/**
 * Opaque cursors: a list's `next` reveals nothing of the position it holds, a changed or
 * foreign cursor is a 400, and a cursor made on one instance opens on another of the same deployment.
 */
import { describe, expect, it } from 'vitest';
import { DeckPositionSchema } from '../../server/features/deck/service';
import { createSealer } from '../../server/lib/sealed';
import { birthDateForAge, makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { backends, serverPerSuite, startServer, startTwoInstances } from '../helpers/server';
import { hasPostgres } from '../helpers/services';

/** What a base64url cursor says when read as text, the way someone poking at it would. */
const readable = (cursor: string) => Buffer.from(cursor, 'base64url').toString('latin1');

/** A cursor with one byte of its sealed body changed. */
function tampered(cursor: string): string {
  const bytes = Buffer.from(cursor, 'base64url');
  bytes[14] = bytes[14]! ^ 0x01;
  return bytes.toString('base64url');
}

describe('the sealer', () => {
  it('opens only what it sealed, for the same purpose, before it expires', () => {
    const sealer = createSealer(Buffer.from('a test secret'));
    const sealed = sealer.seal('cursor:deck', { id: 42 });
    expect(sealer.open('cursor:deck', sealed)).toEqual({ id: 42 });
    expect(sealer.open('cursor:messages', sealed)).toBeNull();
    expect(createSealer(Buffer.from('another secret')).open('cursor:deck', sealed)).toBeNull();
    expect(sealer.open('cursor:deck', tampered(sealed))).toBeNull();
    expect(sealer.open('cursor:deck', sealed.slice(0, -2))).toBeNull();
    expect(sealer.open('cursor:deck', 'not base64url!')).toBeNull();
    const expired = sealer.seal('pass', { event: 1 }, { expiresAt: new Date(Date.now() - 1) });
    expect(sealer.open('pass', expired)).toBeNull();
    const fresh = sealer.seal('pass', { event: 1 }, { expiresAt: new Date(Date.now() + 60_000) });
    expect(sealer.open('pass', fresh)).toEqual({ event: 1 });
    // The same value sealed twice looks different: nothing to compare across pages.
    expect(sealer.seal('cursor:deck', { id: 42 })).not.toBe(sealed);
  });

  it('gives every seal an IV of its own, across the refills of its random pool', () => {
    const sealer = createSealer(Buffer.from('a test secret'));
    const sealed = Array.from({ length: 1_000 }, (_, id) => sealer.seal('cursor:deck', { id }));
    const ivs = new Set(sealed.map((each) => Buffer.from(each, 'base64url').subarray(0, 12).toString('hex')));
    expect(ivs.size).toBe(1_000);
    expect(sealed.map((each) => sealer.open('cursor:deck', each))).toEqual(sealed.map((_, id) => ({ id })));
  });
});

describe.each(backends)('list cursors on %s', (backend) => {
  const server = serverPerSuite({ backend });

  const api = () => client(server.url);

  it('reveal no tier, time or id, and refuse tampering or a cursor of another list', async () => {
    // An age band of this test's own, so that the viewer's deck holds exactly these people.
    const band = { min_matching_age: 81, max_matching_age: 82 };
    const viewer = await makeCompletedUser(server, { ...band, date_of_birth: birthDateForAge(81) });
    const people: TestUser[] = [];
    for (let i = 0; i < 3; i++) people.push(await makeCompletedUser(server, { ...band, date_of_birth: birthDateForAge(82) }));
    // One of them liked the viewer: in the plain cursor of old, that put a telling tier in `next`.
    await api().post('/api/matching/', { token: people[0]!.token, json: { response: 'like', other: viewer.id } });

    const first = await api().get('/api/users/matching-profiles/?limit=1', { token: viewer.token });
    expect(first.status).toBe(200);
    const next: string = first.body.next;
    // It holds a position (the server opens it to the card shown, in the likers' tier, at its
    // activity time), and none of it shows in the bytes.
    const position = server.app.cursors.open('deck', next, DeckPositionSchema, viewer.id)!;
    expect(position).toMatchObject({ tier: 0, id: first.body.results[0].id });
    expect(readable(next)).not.toContain(position.activeUs);
    expect(readable(next)).not.toMatch(/deck|tier|activeUs|\d{6,}/);

    const second = await api().get(`/api/users/matching-profiles/?limit=1&cursor=${next}`, { token: viewer.token });
    expect(second.status).toBe(200);
    expect(second.body.results[0].id).not.toBe(first.body.results[0].id);

    for (const cursor of [tampered(next), next.slice(0, -4), 'AAAA', 'x'.repeat(150)]) {
      const refused = await api().get(`/api/users/matching-profiles/?cursor=${cursor}`, { token: viewer.token });
      expect(refused.status, cursor).toBe(400);
      expect(refused.body).toEqual({ cursor: ['Invalid cursor.'] });
    }
    // A deck cursor is no cursor for the conversation lists, and the other way round.
    const elsewhere = await api().get(`/api/conversations/empty/?cursor=${next}`, { token: viewer.token });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toEqual({ cursor: ['Invalid cursor.'] });
  });
});

describe.skipIf(!(await hasPostgres()))('cursors across instances', () => {
  it('open on every instance of one deployment, and only there', async () => {
    const cluster = await startTwoInstances();
    const { one: a, two: b } = cluster;
    const other = await startServer({ backend: 'pglite' });
    try {
      const band = { min_matching_age: 84, max_matching_age: 85 };
      const viewer = await makeCompletedUser(a, { ...band, date_of_birth: birthDateForAge(84) });
      for (let i = 0; i < 2; i++) await makeCompletedUser(a, { ...band, date_of_birth: birthDateForAge(85) });
      const first = await client(a.url).get('/api/users/matching-profiles/?limit=1', { token: viewer.token });
      const onB = await client(b.url).get(`/api/users/matching-profiles/?limit=1&cursor=${first.body.next}`, {
        token: viewer.token,
      });
      expect(onB.status).toBe(200);
      expect(onB.body.results).toHaveLength(1);
      // Another deployment (its own database, so its own secret) cannot open it.
      const stranger = await makeCompletedUser(other);
      const refused = await client(other.url).get(`/api/users/matching-profiles/?cursor=${first.body.next}`, {
        token: stranger.token,
      });
      expect(refused.status).toBe(400);
    } finally {
      await Promise.all([cluster.close(), other.close()]);
    }
  });

  it('open anywhere SECRET_KEY is the same, whatever database made them', async () => {
    const [a, b] = [
      await startServer({ backend: 'pglite', config: { secretKey: 'one shared secret' } }),
      await startServer({ backend: 'pglite', config: { secretKey: 'one shared secret' } }),
    ];
    try {
      const cursor = a.app.cursors.page('deck', { results: [], next: { tier: 1, activeUs: '1', id: 7 } }).next!;
      expect(b.app.cursors.open('deck', cursor, DeckPositionSchema)).toEqual({
        tier: 1,
        activeUs: '1',
        id: 7,
      });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
