// @vitest-environment jsdom
/**
 * An event changed or deleted by its organizer, heard on the deck of a tab checked in to it: a guest's
 * says the organizer updated or canceled it; the organizer's own (checked in to their event, changing or
 * deleting it from their other phone) follows quietly, rather than tell them what "the organizer" did.
 * Against the real server, over a real socket.
 */
import { isValidElement, type ReactNode } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeEvent } from '../helpers/events';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { closeTab, connectTab, fetchFrom, signInTab, startTabServer } from '../helpers/client-tab';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';
import type { EventInputBody } from '../../shared/schemas/events';

vi.mock('socket.io-client', () => import('../helpers/tab-socket'));

const { useEvents } = await import('../../client/stores/events');
const { useToasts } = await import('../../client/lib/toast');
const { initLanguage, useLanguage } = await import('../../client/lib/i18n');
await import('../../client/lib/messages-app');

const HOUR = 3_600_000;

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

/** This tab on the deck, checked in to a new event of `organizer`'s named Verbena, with no toast shown. */
async function checkedIn(organizer: TestUser, fields: Partial<EventInputBody> = {}) {
  window.history.replaceState(null, '', '/app/');
  // Chosen on this device again (the last test's closeTab cleared storage): else the tab would follow
  // the account's language, Spanish, at its next read of the user.
  await useLanguage.getState().setLanguage('en');
  fetchFrom(server);
  await signInTab(server, me);
  await connectTab(me.token);
  const event = await makeEvent(server, organizer, { name: 'Verbena', ...fields });
  await useEvents.getState().checkIn(event.code);
  useToasts.setState({ toasts: [] });
  return event;
}

describe('a change', () => {
  /**
   * The organizer changes the venue from another phone. Resolves once the tab shows the new venue: the
   * `event:changed` that brought it has said what it had to say by then.
   */
  async function changedElsewhere(organizer: TestUser) {
    const event = await checkedIn(organizer, { venue: 'The square' });
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
});

describe('a deletion', () => {
  /**
   * The organizer deletes the event from another phone, before it starts (check-in opens an hour before).
   * Resolves once the `sync` that follows the deletion has put the tab at no event: what `event:deleted`,
   * heard before it, had to say is said by then.
   */
  async function deletedElsewhere(organizer: TestUser) {
    const starts = Date.now() + HOUR / 2;
    const event = await checkedIn(organizer, { starts_at: new Date(starts).toISOString(), ends_at: new Date(starts + 3 * HOUR).toISOString() });
    expect((await client(server.url).delete(`/api/events/${event.id}/`, { token: organizer.token })).status).toBe(204);
    await vi.waitFor(() => expect(useEvents.getState().current).toBeNull(), { timeout: 5000 });
  }

  it('tells a guest the organizer canceled the event they were at', async () => {
    await deletedElsewhere(await makeCompletedUser(server));
    expect(said()).toEqual(['The organizer canceled Verbena.']);
  });

  it('tells the organizer at their own event, deleted from their other phone, nothing of "the organizer"', async () => {
    await deletedElsewhere(me);
    expect(said()).toEqual([]);
  });
});
