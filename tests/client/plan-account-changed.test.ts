// @vitest-environment jsdom
/**
 * The plan this tab holds follows every `account:changed`, from the real server over a real socket:
 * a change made on another phone may leave `has_subscription` as it was (the test portal's
 * cancellation keeps the plan until its period ends), and the subscribe page must say so all the same.
 */
import { cleanup, render, screen } from '@testing-library/react';
import { createElement, Suspense } from 'react';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { es } from '../../shared/i18n/es';
import { closeTab, connectTab, fetchFrom, offlineWhile, signInTab, startTabServer } from '../helpers/client-tab';
import type { TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { cancelThroughTestPortal, endCancelledTestPlan, subscribeThroughTestCheckout } from '../helpers/plan';
import type { TestServer } from '../helpers/server';

vi.mock('socket.io-client', () => import('../helpers/tab-socket'));

const { initLanguage } = await import('../../client/lib/i18n');
await import('../../client/lib/messages-app');
const { Settings } = await import('../../client/pages/app/Settings');
const { usePlan } = await import('../../client/stores/plan');
const { useSession } = await import('../../client/stores/session');

let server: TestServer;
let me: TestUser;

beforeAll(async () => void ({ server, me } = await startTabServer({ subscribed: true })));
afterAll(() => server?.close());
afterEach(() => {
  cleanup();
  closeTab();
});

it('reads the plan again at each account:changed, also when has_subscription stays as it was', async () => {
  fetchFrom(server);
  await signInTab(server, me);
  expect(await usePlan.getState().loadSubscription()).toBeNull();
  expect(usePlan.getState().subscription).toMatchObject({ active: true, ends_at: null });
  await connectTab(me.token);

  // Settings' plan card, open meanwhile: the plan, in the trial the test checkout starts, and its end.
  await initLanguage();
  render(createElement(Suspense, { fallback: null }, createElement(Settings)));
  const card = async () => (await screen.findByRole('region', { name: es['subscribe.current.title'] })).textContent;
  const day = (iso: string) => new Intl.DateTimeFormat('es-ES', { day: 'numeric', month: 'short', year: 'numeric' }).format(new Date(iso));
  const trialEndsAt = usePlan.getState().subscription!.trial_ends_at!;
  await vi.waitFor(async () => expect(await card()).toContain(`Starter · Prueba gratis hasta el ${day(trialEndsAt)}`));

  // Cancelled on another phone: still subscribed until the period ends, and this tab learns when it ends.
  const { ends_at: endsAt } = await cancelThroughTestPortal(server, me);
  await vi.waitFor(() => expect(usePlan.getState().subscription).toMatchObject({ active: true, renews_at: null, ends_at: endsAt }), { timeout: 5000 });
  expect(useSession.getState().user?.has_subscription).toBe(true);
  await vi.waitFor(async () => expect(await card()).toContain(`Starter · Tu plan termina el ${day(endsAt!)}`));

  // The period over, the plan ends: read again once more.
  await endCancelledTestPlan(server, me);
  await vi.waitFor(() => expect(usePlan.getState().subscription).toMatchObject({ active: false, ends_at: null }), { timeout: 5000 });
  await vi.waitFor(() => expect(useSession.getState().user?.has_subscription).toBe(false));
  await vi.waitFor(async () => expect(await card()).toContain(es['settings.plan.text']));
});

it('reads the plan again after a reconnect: a cancellation made on another phone while this one was offline', async () => {
  await subscribeThroughTestCheckout(server, me);
  fetchFrom(server);
  await signInTab(server, me);
  expect(await usePlan.getState().loadSubscription()).toBeNull();
  expect(usePlan.getState().subscription).toMatchObject({ active: true, ends_at: null });
  await connectTab(me.token);

  // Its account:changed goes by while this phone has no connection; has_subscription stays true.
  let endsAt: string | null = null;
  await offlineWhile(async () => void ({ ends_at: endsAt } = await cancelThroughTestPortal(server, me)));
  expect(endsAt).not.toBeNull();
  await vi.waitFor(() => expect(usePlan.getState().subscription).toMatchObject({ active: true, renews_at: null, ends_at: endsAt }), { timeout: 5000 });
});
