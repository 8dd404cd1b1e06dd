// @vitest-environment jsdom
/**
 * A venue's Wi-Fi that lets no WebSocket through (or a tab beyond the user's sockets): the socket does
 * not come, the server answers over HTTP. A message that met a blip of the network waits for the
 * socket; it goes over HTTP instead, once that is known, and at each try to connect that fails.
 */
import { expect, it, vi } from 'vitest';
import type { Message } from '../../shared/schemas/conversations';

const sendMessage = vi.hoisted(() => vi.fn());
vi.mock('../../client/lib/api-app', () => ({ api: { sendMessage } }));
vi.mock('../../client/lib/socket', async (original) => (await import('../helpers/heard-socket')).heardSocket(await original<object>()));

const { NetworkError } = await import('../../client/lib/api');
const { useConnection } = await import('../../client/lib/socket');
const { useChat } = await import('../../client/stores/chat');
const { useSession } = await import('../../client/stores/session');
const { startRealtime } = await import('../../client/stores/realtime');

const statuses = () => useChat.getState().threads[7]!.messages.map((message) => `${message.content}:${message.status}`);
const stored: string[] = [];
const storeIt = async (_id: number, content: string, clientId: string): Promise<Message> => {
  stored.push(content);
  return { id: stored.length, sender: 1, content, time: '2026-12-06T01:00:00.000Z', client_id: clientId };
};

it('sends over HTTP what waited for a socket that does not come', async () => {
  localStorage.setItem('auth_token', 'token');
  useSession.setState({ token: 'token', user: { id: 1 } as never });
  startRealtime('token');
  vi.spyOn(console, 'error').mockImplementation(() => {});

  // A blip as it was sent: it waits for the socket.
  sendMessage.mockRejectedValueOnce(new NetworkError(0, 'Failed to fetch')).mockImplementation(storeIt);
  await useChat.getState().send(7, 'first');
  expect(statuses()).toEqual(['first:queued']);
  // Three tries to connect failed while the server answers: this network lets no socket through.
  useConnection.setState({ connected: false, lost: true, blocked: true });
  await vi.waitFor(() => expect(statuses()).toEqual(['first:sent']));

  // Another blip, the network still blocking: the socket's next try, failed too, sends it.
  sendMessage.mockRejectedValueOnce(new NetworkError(0, 'Failed to fetch'));
  await useChat.getState().send(7, 'second');
  expect(statuses()).toEqual(['first:sent', 'second:queued']);
  useConnection.setState({ connected: false, lost: true });
  await vi.waitFor(() => expect(statuses()).toEqual(['first:sent', 'second:sent']));
  expect(stored).toEqual(['first', 'second']);
});
