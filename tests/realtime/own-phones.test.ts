/**
 * One user on several phones at once (a phone and a tablet, two tabs): what one of them does reaches
 * the others live, and only them.
 */
import { describe, expect, it } from 'vitest';
import { makeCompletedUser, validProfile } from '../helpers/factories';
import { client } from '../helpers/http';
import { subscribeThroughTestCheckout } from '../helpers/plan';
import { serverPerSuite } from '../helpers/server';
import { connect, record, socketsClosedAfterEach, waitFor } from '../helpers/socket';
import { makePair, match } from './fixtures';

describe('one user on several phones', () => {
  const sockets = socketsClosedAfterEach();
  const connectAs = (token: string) => sockets.connect(server.url, token);

  const server = serverPerSuite();

  it('tells every phone of mine of an unblock (person:unblocked), and never the person unblocked', async () => {
    const [ana, ben] = await Promise.all([makeCompletedUser(server), makeCompletedUser(server)]);
    const api = client(server.url);
    expect((await api.post(`/api/users/${ben.id}/block/`, { token: ana.token })).status).toBe(204);
    const [anaPhone, anaTablet, benSocket] = await Promise.all([connectAs(ana.token), connectAs(ana.token), connectAs(ben.token)]);
    const benEvents = record(benSocket);
    const heard = Promise.all([waitFor(anaPhone, 'person:unblocked'), waitFor(anaTablet, 'person:unblocked')]);
    expect((await api.delete(`/api/users/${ben.id}/block/`, { token: ana.token })).status).toBe(204);
    expect(await heard).toEqual([{ user_id: ben.id }, { user_id: ben.id }]);

    // An unblock of nobody blocked changes nothing, and says nothing.
    const anaEvents = record(anaTablet);
    expect((await api.delete(`/api/users/${ben.id}/block/`, { token: ana.token })).status).toBe(204);
    const marker = waitFor(anaTablet, 'deck:answered');
    await api.post('/api/matching/', { token: ana.token, json: { response: 'skip', other: ben.id } });
    await marker;
    expect(anaEvents.map(({ event }) => event)).toEqual(['deck:answered']);
    expect(benEvents).toEqual([]);
  });

  it('keeps how far I saw a match on any phone (match:seen), tells my other phones, and only moves it forward', async () => {
    const { a: ana, b: ben, conversationId } = await makePair(server);
    const cleo = await makeCompletedUser(server);
    const benCleo = await match(server, ben, cleo);
    const [anaPhone, anaTablet, benSocket] = await Promise.all([connectAs(ana.token), connectAs(ana.token), connectAs(ben.token)]);
    const benEvents = record(benSocket);
    const anaEvents = record(anaTablet);
    // Not back to the phone that saw it: there, the list that sees a match would close its overlay as it opened.
    const phoneEvents = record(anaPhone);
    const api = client(server.url);
    const seenBy = async (token: string) =>
      (await api.get('/api/conversations/empty/', { token })).body.results.find((item: { id: number }) => item.id === conversationId).seen;
    expect(await seenBy(ana.token)).toBeNull();

    const said = (seen: 'overlay' | 'chats', ids = [conversationId]) => anaPhone.emitWithAck('match:seen', { conversation_ids: ids, seen });
    const heard = waitFor(anaTablet, 'match:seen');
    expect(await said('overlay')).toEqual({ ok: true });
    expect(await heard).toEqual({ conversation_ids: [conversationId], seen: 'overlay' });
    expect(await seenBy(ana.token)).toBe('overlay');
    // Mine alone: Ben has not seen it.
    expect(await seenBy(ben.token)).toBeNull();

    // Again, or someone else's match: nothing moves, nothing is told.
    expect(await said('overlay')).toEqual({ ok: true });
    expect(await said('chats', [benCleo])).toEqual({ ok: true });
    const cleoSide = (await api.get('/api/conversations/empty/', { token: ben.token })).body.results.find((item: { id: number }) => item.id === benCleo);
    expect(cleoSide.seen).toBeNull();
    const chats = waitFor(anaTablet, 'match:seen');
    expect(await said('chats')).toEqual({ ok: true });
    expect(await chats).toEqual({ conversation_ids: [conversationId], seen: 'chats' });
    // The overlay is behind the chats: it does not take the mark back.
    expect(await said('overlay')).toEqual({ ok: true });
    expect(await seenBy(ana.token)).toBe('chats');
    expect(anaEvents.map(({ payload }) => (payload as { seen: string }).seen)).toEqual(['overlay', 'chats']);
    expect(benEvents).toEqual([]);
    expect(phoneEvents.filter(({ event }) => event === 'match:seen')).toEqual([]);

    const refused = await anaPhone.emitWithAck('match:seen', { conversation_ids: [], seen: 'later' } as never);
    expect(refused).toMatchObject({ ok: false, error: { code: 'validation' } });
  });

  it('keeps how far I saw a match once my partner writes first: a phone that was away does not show its overlay again', async () => {
    const { a: ana, b: ben, conversationId } = await makePair(server);
    const anaPhone = await connectAs(ana.token);
    expect(await anaPhone.emitWithAck('match:seen', { conversation_ids: [conversationId], seen: 'overlay' })).toEqual({ ok: true });
    const api = client(server.url);
    expect((await api.post(`/api/conversations/${conversationId}/messages/`, { token: ben.token, json: { content: 'Hola!' } })).status).toBe(201);
    // The match moved to the started list, not read in yet: the tablet that was asleep reads it there.
    const listed = (token: string) => api.get('/api/conversations/started/', { token });
    const [forAna, forBen] = await Promise.all([listed(ana.token), listed(ben.token)]);
    expect(forAna.body.results).toEqual([expect.objectContaining({ id: conversationId, entered: false, seen: 'overlay' })]);
    expect(forBen.body.results).toEqual([expect.objectContaining({ id: conversationId, entered: true, seen: null })]);
  });

  it('tells every phone of mine of an undo (deck:undone) with what it took back, and nobody else', async () => {
    const [ana, ben] = await Promise.all([makeCompletedUser(server, { name: 'Ana' }), makeCompletedUser(server, { name: 'Ben', bio: 'Back.' })]);
    await subscribeThroughTestCheckout(server, ana);
    const api = client(server.url);
    expect((await api.post('/api/matching/', { token: ana.token, json: { response: 'dislike', other: ben.id } })).status).toBe(200);
    const [anaPhone, anaTablet, benSocket] = await Promise.all([connectAs(ana.token), connectAs(ana.token), connectAs(ben.token)]);
    const benEvents = record(benSocket);
    const heard = Promise.all([waitFor(anaPhone, 'deck:undone'), waitFor(anaTablet, 'deck:undone')]);
    const undone = await api.post('/api/matching/undo/', { token: ana.token, json: { user_id: ben.id } });
    expect(undone.status, JSON.stringify(undone.body)).toBe(200);
    // What the phone that undid it was answered: the other phones put the same card back.
    expect(undone.body).toMatchObject({ undone: 'dislike', card: { id: ben.id, name: 'Ben', bio: 'Back.' } });
    expect(await heard).toEqual([undone.body, undone.body]);

    // An undo that takes back nothing says nothing.
    const anaEvents = record(anaTablet);
    expect((await api.post('/api/matching/undo/', { token: ana.token, json: {} })).status).toBe(409);
    const marker = waitFor(anaTablet, 'deck:answered');
    await api.post('/api/matching/', { token: ana.token, json: { response: 'skip', other: ben.id } });
    await marker;
    expect(anaEvents.map(({ event }) => event)).toEqual(['deck:answered']);
    expect(benEvents).toEqual([]);
  });

  it('tells my other phones that my profile was saved (account:changed), and nobody else', async () => {
    const { a: ana, b: ben } = await makePair(server);
    const [anaPhone, anaTablet, benSocket] = await Promise.all([connectAs(ana.token), connectAs(ana.token), connectAs(ben.token)]);
    const benEvents = record(benSocket);
    const heard = Promise.all([waitFor(anaPhone, 'account:changed'), waitFor(anaTablet, 'account:changed')]);
    const saved = await client(server.url).put('/api/users/me/profile/', { token: ana.token, json: await validProfile({ name: 'Ana', bio: 'New photo.' }) });
    expect(saved.status).toBe(200);
    await heard;
    expect(benEvents).toEqual([]);
  });
});
