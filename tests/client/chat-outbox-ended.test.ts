// @vitest-environment jsdom
/**
 * Messages still on their way when the server ends the session from elsewhere (the password changed,
 * or "Log out everywhere", on another phone; an expiry) stay on the device for their user: they go, in
 * order and under their own client_ids, when that user signs in here again, and never as anyone else.
 * A ban, a logout on this phone and the account deleted here take them with the rest, as before.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Message } from '../../shared/schemas/conversations';
import type { CurrentUser } from '../../shared/schemas/users';
import { noNetwork } from '../helpers/no-network';

const { me, logout } = vi.hoisted(() => ({ me: vi.fn(), logout: vi.fn(async () => null) }));
const socket = vi.hoisted(() => ({ connected: false, sent: [] as Array<{ content: string; client_id: string }> }));
vi.mock('../../client/lib/api', async (original) => {
  const actual = await original<typeof import('../../client/lib/api')>();
  return { ...actual, api: { ...actual.api, me, logout } };
});
vi.mock('../../client/lib/api-app', () => ({ api: { sendMessage: noNetwork } }));
vi.mock('../../client/lib/socket', () => ({
  SocketRefused: class extends Error {},
  isConnected: () => socket.connected,
  sendRead: () => {},
  async sendMessageOverSocket(payload: { content: string; client_id: string }): Promise<Message> {
    if (!socket.connected) throw new Error('offline');
    socket.sent.push({ content: payload.content, client_id: payload.client_id });
    return { id: socket.sent.length, sender: useSession.getState().user!.id, content: payload.content, time: new Date().toISOString(), client_id: payload.client_id };
  },
}));

const { useChat } = await import('../../client/stores/chat');
const { endRevokedSession, useSession } = await import('../../client/stores/session');

const ana = { id: 1, email: 'ana@example.com', first_name: 'Ana', last_name: '' } as CurrentUser;
const ben = { id: 2, email: 'ben@example.com', first_name: 'Ben', last_name: '' } as CurrentUser;

/** Signs in on the login page, then the app loads the user. */
async function signInAs(user: CurrentUser, token: string) {
  me.mockResolvedValueOnce(user);
  useSession.getState().signIn(token);
  await useSession.getState().loadUser();
}

/** Ana, with no network, writes two messages to conversation 7: they wait on the device. */
async function anaWritesOffline() {
  await signInAs(ana, 'ana-phone-a');
  await useChat.getState().send(7, 'first');
  await useChat.getState().send(7, 'second');
  const waiting = useChat.getState().threads[7]!.messages;
  expect(waiting.map((message) => message.status)).toEqual(['queued', 'queued']);
  return waiting.map((message) => message.client_id);
}

describe('the messages on their way when the session ends', () => {
  afterEach(() => {
    useSession.getState().signOut({ alreadyRevoked: true });
    localStorage.clear();
    socket.connected = false;
    socket.sent = [];
    me.mockReset();
  });

  it('stay on the device when it was ended from elsewhere, and go when the same user signs in again', async () => {
    const clientIds = await anaWritesOffline();
    endRevokedSession();
    // Signed out as before: nothing of the session is left on screen, nor its token.
    expect(useSession.getState().token).toBeNull();
    expect(useChat.getState().threads).toEqual({});
    expect(localStorage.getItem('auth_token')).toBeNull();

    socket.connected = true;
    await signInAs(ana, 'ana-again');
    await vi.waitFor(() => expect(socket.sent.map((sent) => sent.content)).toEqual(['first', 'second']));
    // Under the client_ids they were written with: one that did reach the server is not stored twice.
    expect(socket.sent.map((sent) => sent.client_id)).toEqual(clientIds);
    expect(useChat.getState().threads[7]!.messages.map((message) => `${message.content}:${message.status}`)).toEqual(['first:sent', 'second:sent']);
    await vi.waitFor(() => expect(localStorage.getItem(`chat_outbox:${ana.id}`)).toBeNull());
  });

  it('are never sent as someone else who signs in on the device, and go then', async () => {
    await anaWritesOffline();
    endRevokedSession();
    socket.connected = true;
    await signInAs(ben, 'ben-token');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(socket.sent).toEqual([]);
    expect(useChat.getState().threads[7]).toBeUndefined();
    expect(localStorage.getItem(`chat_outbox:${ana.id}`)).toBeNull();

    // Nor later, when Ana is back.
    useSession.getState().signOut();
    await signInAs(ana, 'ana-again');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(socket.sent).toEqual([]);
  });

  it.each([
    ['a ban', () => endRevokedSession('account_suspended')],
    ['a logout on this phone', () => useSession.getState().signOut()],
    ['the account deleted, or every session ended, from this phone', () => useSession.getState().signOut({ alreadyRevoked: true })],
  ])('go with the rest of the device’s copy of the account at %s', async (_way, end) => {
    await anaWritesOffline();
    end();
    expect(localStorage.getItem(`chat_outbox:${ana.id}`)).toBeNull();
    socket.connected = true;
    await signInAs(ana, 'ana-again');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(socket.sent).toEqual([]);
  });
});
