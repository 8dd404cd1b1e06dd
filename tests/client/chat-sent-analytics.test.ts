// @vitest-environment jsdom
/**
 * `message_sent` is recorded for the one who sent it: an answer that lands after they signed out and
 * someone else signed in on the device is not recorded as the next person's.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Message } from '../../shared/schemas/conversations';
import type { CurrentUser } from '../../shared/schemas/users';
import { later } from '../helpers/later';

const { me, logout, recorded } = vi.hoisted(() => ({
  me: vi.fn(),
  logout: vi.fn(async () => null),
  recorded: [] as Array<[name: string, token: string | null]>,
}));
const answer = vi.hoisted(() => ({ held: null as ReturnType<typeof later<Message>> | null }));
vi.mock('../../client/lib/api', async (original) => {
  const actual = await original<typeof import('../../client/lib/api')>();
  const { getToken } = await import('../../client/lib/storage');
  const recordEvent = async (name: string) => void recorded.push([name, getToken()]);
  return { ...actual, api: { ...actual.api, me, logout, recordEvent } };
});
vi.mock('../../client/lib/socket', () => ({
  SocketRefused: class extends Error {},
  isConnected: () => true,
  sendRead: () => {},
  sendMessageOverSocket: (payload: { client_id: string }) =>
    answer.held!.promise.then((stored) => ({ ...stored, client_id: payload.client_id })),
}));

const { useChat } = await import('../../client/stores/chat');
const { useSession } = await import('../../client/stores/session');

const ana = { id: 1, email: 'ana@example.com', first_name: 'Ana', last_name: '' } as CurrentUser;
const ben = { id: 2, email: 'ben@example.com', first_name: 'Ben', last_name: '' } as CurrentUser;
const stored: Message = { id: 1, sender: ana.id, content: 'hola', time: new Date().toISOString(), client_id: null };

/** The `message_sent` events recorded, by the token they went with. */
const messagesSent = () => recorded.filter(([name]) => name === 'message_sent').map(([, token]) => token);

async function signInAs(user: CurrentUser, token: string) {
  me.mockResolvedValueOnce(user);
  useSession.getState().signIn(token);
  await useSession.getState().loadUser();
}

describe('message_sent, for the one who sent it', () => {
  afterEach(() => {
    useSession.getState().signOut({ alreadyRevoked: true });
    localStorage.clear();
    me.mockReset();
    recorded.length = 0;
  });

  it('is recorded when the answer comes in the same session', async () => {
    await signInAs(ana, 'ana-phone');
    answer.held = later<Message>();
    const sending = useChat.getState().send(7, 'hola');
    answer.held.resolve(stored);
    await sending;
    expect(useChat.getState().threads[7]!.messages.map((message) => message.status)).toEqual(['sent']);
    expect(messagesSent()).toEqual(['ana-phone']);
  });

  it('is not recorded as the next person’s when the answer lands after a sign-out and a sign-in', async () => {
    await signInAs(ana, 'ana-phone');
    answer.held = later<Message>();
    const sending = useChat.getState().send(7, 'hola');
    useSession.getState().signOut({ alreadyRevoked: true });
    await signInAs(ben, 'ben-phone');
    answer.held.resolve(stored);
    await sending;
    expect(messagesSent()).toEqual([]);
  });
});
