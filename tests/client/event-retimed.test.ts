// @vitest-environment jsdom
/**
 * The organizer moves the end of the event a guest is at (the party runs late, or closes early): the
 * guest's phone says the new time in its toast. The bar above the deck shows only the name and the
 * count, so "The organizer updated Fiesta." left them to guess what changed.
 */
import { isValidElement, type ReactNode } from 'react';
import { afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { hear } from '../helpers/heard-socket';
import { publicEvent } from '../helpers/public-event';

vi.mock('../../client/lib/socket', async (original) => (await import('../helpers/heard-socket')).heardSocket(await original<object>()));

const { useEvents } = await import('../../client/stores/events');
const { startRealtime, stopRealtime } = await import('../../client/stores/realtime');
const { useToasts } = await import('../../client/lib/toast');
const { initLanguage, useLanguage } = await import('../../client/lib/i18n');
await import('../../client/lib/messages-app');

const HOUR = 3_600_000;
const event = publicEvent({ id: 1, name: 'Fiesta', ends_at: '2026-06-06T22:00:00Z' });

beforeAll(async () => {
  process.env.TZ = 'UTC';
  await initLanguage();
});
beforeEach(() => {
  startRealtime('token');
  useEvents.setState({ current: event });
  useToasts.setState({ toasts: [] });
});
afterEach(() => {
  stopRealtime();
  useEvents.getState().reset();
});

/** A toast's words, its names' <bdi>s read as their text. */
const plain = (node: ReactNode): string =>
  Array.isArray(node) ? node.map(plain).join('') : isValidElement<{ children: ReactNode }>(node) ? plain(node.props.children) : String(node ?? '');
const said = () => useToasts.getState().toasts.map((toast) => plain(toast.message));

it.each([
  ['en', 'The organizer updated Fiesta: it now ends at 11:30\u00a0PM.'],
  ['es', 'La organización ha actualizado Fiesta: ahora termina a las 23:30.'],
] as const)('says the new end time when the organizer moves it (%s)', async (language, text) => {
  await useLanguage.getState().setLanguage(language);
  hear('event:changed', { event: { ...event, ends_at: new Date(Date.parse(event.ends_at) + 1.5 * HOUR).toISOString() } });
  expect(said()).toEqual([text]);
});

it('says only that it changed when the times stay (a new venue)', async () => {
  await useLanguage.getState().setLanguage('en');
  hear('event:changed', { event: { ...event, venue: 'The Roof' } });
  expect(said()).toEqual(['The organizer updated Fiesta.']);
});
