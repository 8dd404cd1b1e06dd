// @vitest-environment jsdom
/**
 * An event changed by its organizer, heard on the deck of a tab checked in to it: a guest's says the
 * organizer updated it; the organizer's own (checked in to their event, changing it from their other
 * phone) shows it as it is now quietly, rather than tell them that "the organizer" updated it. Against
 * the real server, over a real socket.
 */
import { isValidElement, type ReactNode } from 'react';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { makeEvent } from '../helpers/events';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { closeTab, connectTab, fetchFrom, signInTab, startTabServer } from '../helpers/client-tab';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';

vi.mock('socket.io-client', () => import('../helpers/tab-socket'));

const { useEvents } = await import('../../client/stores/events');
const { useToasts } = await import('../../client/lib/toast');
const { initLanguage, useLanguage } = await import('../../client/lib/i18n');
await import('../../client/lib/messages-app');

let server: TestServer;
let me: TestUser;

beforeAll(async () => {
  ({ server, me } = await startTabServer());
  await initLanguage();
  await useLanguage.getState().setLanguage('en');
});
afterAll(() => server?.close());
afterEach(() => closeTab());

/** A toast's words, its names' <bdi>s read as their text. */
const plain = (node: ReactNode): string =>
  Array.isArray(node) ? node.map(plain).join('') : isValidElement<{ children: ReactNode }>(node) ? plain(node.props.children) : String(node ?? '');
const said = () => useToasts.getState().toasts.map((toast) => plain(toast.message));

/**
 * This tab on the deck, checked in to a new open event of `organizer`'s, whose venue that organizer
 * then changes from another phone. Resolves once the tab shows the new venue: the `event:changed`
 * that brought it has said what it had to say by then.
 */
async function changedElsewhere(organizer: TestUser) {
  window.history.replaceState(null, '', '/app/');
  fetchFrom(server);
  await signInTab(server, me);
  await connectTab(me.token);
  const event = await makeEvent(server, organizer, { name: 'Verbena', venue: 'The square' });
  await useEvents.getState().checkIn(event.code);
  useToasts.setState({ toasts: [] });
  const patched = await client(server.url).patch(`/api/events/${event.id}/`, { token: organizer.token, json: { venue: 'The roof' } });
  expect(patched.status).toBe(200);
  await vi.waitFor(() => expect(useEvents.getState().current).toMatchObject({ id: event.id, venue: 'The roof' }), { timeout: 5000 });
}

it('tells a guest the organizer updated the event they are at', async () => {
  await changedElsewhere(await makeCompletedUser(server));
  expect(said()).toEqual(['The organizer updated Verbena.']);
});

it('tells the organizer at their own event, changed from their other phone, nothing of "the organizer"', async () => {
  await changedElsewhere(me);
  expect(said()).toEqual([]);
});
