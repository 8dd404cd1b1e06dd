// @vitest-environment jsdom
/**
 * A reconnect's catch-up reads "likes you" and the blocked people again where the tab holds them: an
 * unblock made on another phone while this one was offline (its push missed) shows at once, not at
 * the next load. A list never opened is not asked for. A chat held is caught up to its last message,
 * however many were missed. Against the real server, over a real socket.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { closeTab, connectTab, fetchFrom, offlineWhile, signInTab, startTabServer } from '../helpers/client-tab';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';
import { messages } from '../../server/db/schema';
import { match } from '../realtime/fixtures';

vi.mock('socket.io-client', () => import('../helpers/tab-socket'));

const { useLikes } = await import('../../client/stores/likes');
const { useSafety } = await import('../../client/stores/safety');
const { useChat } = await import('../../client/stores/chat');

let server: TestServer;
let me: TestUser;

beforeAll(async () => void ({ server, me } = await startTabServer({ subscribed: true })));
afterAll(() => server?.close());
afterEach(closeTab);

const api = () => client(server.url);

it('reads "likes you" and the blocked again at a reconnect where they are held', async () => {
  fetchFrom(server);
  const liker = await makeCompletedUser(server);
  expect((await api().post('/api/matching/', { token: liker.token, json: { response: 'like', other: me.id } })).status).toBe(200);
  expect((await api().post(`/api/users/${liker.id}/block/`, { token: me.token })).status).toBeLessThan(300);
  await signInTab(server, me);
  await useLikes.getState().load();
  await useSafety.getState().load('blocked');
  expect(useLikes.getState().count).toBe(0);
  expect(useSafety.getState().lists.blocked.items?.map((person) => person.id)).toEqual([liker.id]);
  await connectTab(me.token);

  // Unblocked on another phone while this one was offline: its push never came here.
  await offlineWhile(async () => {
    expect((await api().delete(`/api/users/${liker.id}/block/`, { token: me.token })).status).toBe(204);
  });
  await vi.waitFor(() => expect(useLikes.getState()).toMatchObject({ count: 1, people: [{ id: liker.id }] }), { timeout: 5000 });
  await vi.waitFor(() => expect(useSafety.getState().lists.blocked.items).toEqual([]), { timeout: 5000 });
});

it('does not ask for lists never opened at a reconnect', async () => {
  const asked: string[] = [];
  fetchFrom(server);
  const forward = globalThis.fetch;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    asked.push(String(input));
    return forward(input, init);
  });
  await signInTab(server, me);
  await connectTab(me.token);
  await offlineWhile(async () => {});
  // The catch-up's read of the account is out by now.
  await vi.waitFor(() => expect(asked.includes('/api/users/me/')).toBe(true), { timeout: 5000 });
  expect(asked.filter((path) => path.includes('/likes/') || path.includes('/blocks/'))).toEqual([]);
});

it('brings every message a chat missed at a reconnect, more than a thousand too, and no later push leaves a gap', async () => {
  fetchFrom(server);
  const partner = await makeCompletedUser(server);
  const conversationId = await match(server, me, partner);
  await signInTab(server, me);
  await useChat.getState().open(conversationId);
  await connectTab(me.token);
  // The partner writes on while this phone is away: 1,010 messages, more than 20 pages of 50.
  await offlineWhile(async () => {
    await server.app.db
      .insert(messages)
      .values(Array.from({ length: 1010 }, (_, i) => ({ conversationId, senderId: partner.id, content: `missed ${i}` })));
  });
  const sent = await api().post(`/api/conversations/${conversationId}/messages/`, { token: partner.token, json: { content: 'and now?' } });
  expect(sent.status).toBe(201);
  const contents = () => useChat.getState().threads[conversationId]!.messages.map((message) => message.content);
  await vi.waitFor(() => expect(contents().at(-1)).toBe('and now?'), { timeout: 5000 });
  await vi.waitFor(() => expect(contents()).toEqual([...Array.from({ length: 1010 }, (_, i) => `missed ${i}`), 'and now?']), { timeout: 5000 });
});

it('fetches a message whose push never came once the next push names it, the socket connected all along', async () => {
  fetchFrom(server);
  const partner = await makeCompletedUser(server);
  const conversationId = await match(server, me, partner);
  await signInTab(server, me);
  await useChat.getState().open(conversationId);
  await connectTab(me.token);
  // Stored by an instance that died before it could push it (its resend, on another instance, is
  // answered as a repeat and not pushed again): this tab's socket, on an instance still up, stays.
  await server.app.db.insert(messages).values({ conversationId, senderId: partner.id, content: 'never pushed', clientId: randomUUID() });
  const sent = await api().post(`/api/conversations/${conversationId}/messages/`, { token: partner.token, json: { content: 'did you get it?' } });
  expect(sent.status).toBe(201);
  const contents = () => useChat.getState().threads[conversationId]!.messages.map((message) => message.content);
  await vi.waitFor(() => expect(contents()).toEqual(['never pushed', 'did you get it?']), { timeout: 5000 });
});

it('brings every message a chat it holds missed when it is opened again with no socket (a network that lets none through)', async () => {
  fetchFrom(server);
  const partner = await makeCompletedUser(server);
  const conversationId = await match(server, me, partner);
  await signInTab(server, me);
  await useChat.getState().open(conversationId);
  await server.app.db
    .insert(messages)
    .values(Array.from({ length: 60 }, (_, i) => ({ conversationId, senderId: partner.id, content: `unheard ${i}` })));
  await useChat.getState().open(conversationId);
  const contents = () => useChat.getState().threads[conversationId]!.messages.map((message) => message.content);
  await vi.waitFor(() => expect(contents()).toEqual(Array.from({ length: 60 }, (_, i) => `unheard ${i}`)), { timeout: 5000 });
});
