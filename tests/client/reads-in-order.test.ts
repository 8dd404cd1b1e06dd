// @vitest-environment jsdom
/**
 * The plan and the user are read again at every `account:changed` while a read of the page's own may
 * still be out. A read asked before the change, answered after the one asked for it, must not put back
 * what the change replaced: a plan cancelled on another phone would show as renewing again. The likes
 * left likewise, read again as the plan starts while a reconnect's read is out, and what undo would
 * bring back, read again at a pass on another phone while the deck's read is out, or told by that pass
 * itself (the free plan's offer) while a reconnect's read is out.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { LikeAllowance, SubscriptionState } from '../../shared/schemas/plan';
import type { DeckCard } from '../../shared/schemas/users';
import { currentUser } from '../helpers/current-user';

/** Each read, answered when the test says. */
const asked = vi.hoisted(() => ({
  subscription: [] as Array<(value: unknown) => void>,
  me: [] as Array<(value: unknown) => void>,
  allowance: [] as Array<(value: unknown) => void>,
  undoable: [] as Array<(value: unknown) => void>,
}));
vi.mock('../../client/lib/api-app', () => ({
  api: {
    subscription: () => new Promise((resolve) => asked.subscription.push(resolve)),
    likeAllowance: () => new Promise((resolve) => asked.allowance.push(resolve)),
    undoable: () => new Promise((resolve) => asked.undoable.push(resolve)),
  },
}));
vi.mock('../../client/lib/api', async (original) => {
  const real = await original<typeof import('../../client/lib/api')>();
  return { ...real, api: { ...real.api, me: () => new Promise((resolve) => asked.me.push(resolve)) } };
});

const { usePlan } = await import('../../client/stores/plan');
const { useSession } = await import('../../client/stores/session');

const renewing: SubscriptionState = {
  active: true,
  period: 'monthly',
  manageable: true,
  trial_days: 0,
  renews_at: '2027-01-05T12:00:00.000Z',
  ends_at: null,
  trial_ends_at: null,
  payment_failed: false,
  payment_incomplete: false,
};
const cancelled: SubscriptionState = { ...renewing, renews_at: null, ends_at: '2027-01-05T12:00:00.000Z' };
const user = (emailVerified: boolean) => currentUser({ has_subscription: true, email_verified: emailVerified });
const card = (id: number): DeckCard => ({ id, name: `Person ${id}`, age: 30, bio: '', image: null });

beforeEach(() => useSession.setState({ token: 't', user: user(false), fromDevice: false }));
afterEach(() => {
  usePlan.getState().reset();
  asked.subscription.length = 0;
  asked.me.length = 0;
  asked.allowance.length = 0;
  asked.undoable.length = 0;
});

it("keeps the plan read for a change when the page's older read answers after it", async () => {
  const pageRead = usePlan.getState().loadSubscription();
  const changeRead = usePlan.getState().loadSubscription();
  expect(asked.subscription).toHaveLength(2);
  asked.subscription[1]!(cancelled);
  await changeRead;
  asked.subscription[0]!(renewing);
  await pageRead;
  expect(usePlan.getState().subscription).toEqual(cancelled);
});

it('lands an older read that answers first, then the newer one', async () => {
  const pageRead = usePlan.getState().loadSubscription();
  const changeRead = usePlan.getState().loadSubscription();
  asked.subscription[0]!(renewing);
  await pageRead;
  expect(usePlan.getState().subscription).toEqual(renewing);
  asked.subscription[1]!(cancelled);
  await changeRead;
  expect(usePlan.getState().subscription).toEqual(cancelled);
});

it("keeps the user read for a change when a connect's older read answers after it", async () => {
  const connectRead = useSession.getState().loadUser();
  const changeRead = useSession.getState().loadUser();
  expect(asked.me).toHaveLength(2);
  asked.me[1]!(user(true));
  await changeRead;
  asked.me[0]!(user(false));
  await connectRead;
  expect(useSession.getState().user?.email_verified).toBe(true);
});

it('keeps the likes left read as the plan started when an older read answers after it', async () => {
  const free: LikeAllowance = { unlimited: false, limit: 20, remaining: 3, resets_at: null };
  const unlimited: LikeAllowance = { unlimited: true, limit: null, remaining: null, resets_at: null };
  const reconnectRead = usePlan.getState().loadAllowance();
  const planRead = usePlan.getState().loadAllowance();
  expect(asked.allowance).toHaveLength(2);
  asked.allowance[1]!(unlimited);
  await planRead;
  asked.allowance[0]!(free);
  await reconnectRead;
  expect(usePlan.getState().allowance).toEqual(unlimited);
});

it("offers what undo would bring back as a pass on another phone left it when the deck's older read answers after it", async () => {
  const deckRead = usePlan.getState().loadUndo();
  const passRead = usePlan.getState().loadUndo();
  expect(asked.undoable).toHaveLength(2);
  asked.undoable[1]!({ card: card(2), expires_at: '2027-01-05T12:00:00.000Z', expires_in_ms: 60_000 });
  await passRead;
  asked.undoable[0]!({ card: card(1), expires_at: '2027-01-05T12:00:00.000Z', expires_in_ms: 30_000 });
  await deckRead;
  expect(usePlan.getState().lastPass?.id).toBe(2);
});

it("on the free plan, offers what a decision on another phone left when a reconnect's older read answers after it", async () => {
  useSession.setState({ user: currentUser({ has_subscription: false }) });
  usePlan.getState().reacted(card(1), 'skip');
  const reconnectRead = usePlan.getState().loadUndo();
  // Liked there, heard here before the read answers: nothing is left to undo. The server read the skip.
  usePlan.getState().answered(2, 'like', null);
  asked.undoable[0]!({ card: card(1), expires_at: '2027-01-05T12:00:00.000Z', expires_in_ms: 60_000 });
  await reconnectRead;
  expect(usePlan.getState().lastPass).toBeNull();

  // Disliked there, a card this deck holds: that one, not the older read's.
  const nextRead = usePlan.getState().loadUndo();
  usePlan.getState().answered(3, 'dislike', card(3));
  asked.undoable[1]!({ card: card(1), expires_at: '2027-01-05T12:00:00.000Z', expires_in_ms: 60_000 });
  await nextRead;
  expect(usePlan.getState().lastPass?.id).toBe(3);
});
