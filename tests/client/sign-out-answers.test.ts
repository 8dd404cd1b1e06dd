// @vitest-environment jsdom
/**
 * An answer to a request of one session that lands in the next (a slow network, a phone handed to a
 * friend who signs in): every store that loads in the background drops it, so that nothing of the
 * last user reaches the next.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PublicEvent } from '../../shared/schemas/events';
import type { CurrentUser } from '../../shared/schemas/users';
import { later } from '../helpers/later';

const appApi = vi.hoisted(() => ({
  deck: vi.fn(),
  currentEvent: vi.fn(),
  likesYou: vi.fn(),
  likeAllowance: vi.fn(),
  subscription: vi.fn(),
  conversation: vi.fn(),
  messages: vi.fn(),
  blocks: vi.fn(),
  myProfile: vi.fn(),
  saveProfile: vi.fn(),
}));
const me = vi.hoisted(() => vi.fn());
const listOnlinePartners = vi.hoisted(() => vi.fn());
vi.mock('../../client/lib/api-app', () => ({ api: appApi }));
vi.mock('../../client/lib/api', async (original) => {
  const actual = await original<typeof import('../../client/lib/api')>();
  return { ...actual, api: { ...actual.api, me, logout: async () => null } };
});
vi.mock('../../client/lib/socket', async (original) => ({ ...(await original<object>()), listOnlinePartners }));

const { useSession } = await import('../../client/stores/session');
const { useDeck } = await import('../../client/stores/deck');
const { useEvents } = await import('../../client/stores/events');
const { useLikes } = await import('../../client/stores/likes');
const { usePlan } = await import('../../client/stores/plan');
const { usePresence } = await import('../../client/stores/presence');
const { useChat } = await import('../../client/stores/chat');
const { useSafety } = await import('../../client/stores/safety');
const { useProfile } = await import('../../client/stores/profile');

const ana = { id: 1, email: 'ana@example.com', first_name: 'Ana', last_name: 'R' } as CurrentUser;
const anaCard = { id: 41, name: 'Someone Ana saw' };

describe('an answer that lands after a sign-out', () => {
  afterEach(() => {
    useSession.getState().signOut({ alreadyRevoked: true });
    vi.resetAllMocks();
  });

  it('does not make the last user the current one for whoever signed in next', async () => {
    useSession.getState().signIn('ana-token');
    const answer = later<CurrentUser>();
    me.mockReturnValueOnce(answer.promise);
    const loading = useSession.getState().loadUser();
    useSession.getState().signOut({ alreadyRevoked: true });
    useSession.getState().signIn('ben-token');
    answer.resolve(ana);
    await loading;
    expect(useSession.getState()).toMatchObject({ token: 'ben-token', user: undefined });
  });

  it('leaves the deck, the event, who likes you, the plan and who is online as a fresh session has them', async () => {
    useSession.getState().signIn('ana-token');
    const deck = later<{ results: unknown[] }>();
    const event = later<{ event: PublicEvent | null }>();
    const likes = later<{ count: number; results: unknown[]; next: string | null }>();
    const allowance = later<unknown>();
    const subscription = later<unknown>();
    const online = later<number[]>();
    appApi.deck.mockReturnValueOnce(deck.promise);
    appApi.currentEvent.mockReturnValueOnce(event.promise);
    appApi.likesYou.mockReturnValueOnce(likes.promise);
    appApi.likeAllowance.mockReturnValueOnce(allowance.promise);
    appApi.subscription.mockReturnValueOnce(subscription.promise);
    listOnlinePartners.mockReturnValueOnce(online.promise);

    const loads = [
      useDeck.getState().load(),
      useEvents.getState().loadCurrent(),
      useLikes.getState().load(),
      usePlan.getState().loadAllowance(),
      usePlan.getState().loadSubscription(),
      usePresence.getState().refresh(),
    ];
    useSession.getState().signOut({ alreadyRevoked: true });
    useSession.getState().signIn('ben-token');
    deck.resolve({ results: [anaCard] });
    event.resolve({ event: { id: 7, name: 'Ana’s party' } as PublicEvent });
    likes.resolve({ count: 3, results: [anaCard], next: null });
    allowance.resolve({ unlimited: false, limit: 100, remaining: 12, resets_at: null });
    subscription.resolve({ active: true });
    online.resolve([5]);
    await Promise.all(loads);

    expect(useDeck.getState()).toMatchObject({ queue: null, current: null, deckRequest: null });
    expect(useEvents.getState().current).toBeUndefined();
    expect(useLikes.getState()).toMatchObject({ count: null, people: null });
    expect(usePlan.getState()).toMatchObject({ allowance: null, subscription: null });
    expect(usePresence.getState().online.size).toBe(0);
  });

  it('keeps the people the last user blocked out of the blocked list', async () => {
    useSession.getState().signIn('ana-token');
    const blocked = later<{ results: unknown[]; next: string | null }>();
    appApi.blocks.mockReturnValueOnce(blocked.promise);
    const loading = useSafety.getState().load('blocked');
    useSession.getState().signOut({ alreadyRevoked: true });
    useSession.getState().signIn('ben-token');
    blocked.resolve({ results: [{ id: 3, name: 'Someone Ana blocked', image: null }], next: null });
    await loading;
    expect(useSafety.getState().lists.blocked).toEqual({ items: null, next: null, loading: false });
  });

  it('keeps the last user’s profile out of the next one’s, loaded or saved', async () => {
    const anaProfile = { name: 'Ana', bio: 'Ana’s words', version: 3 };
    useSession.getState().signIn('ana-token');
    const profile = later<unknown>();
    appApi.myProfile.mockReturnValueOnce(profile.promise);
    const loading = useProfile.getState().load();
    useSession.getState().signOut({ alreadyRevoked: true });
    useSession.getState().signIn('ben-token');
    profile.resolve(anaProfile);
    await loading;
    expect(useProfile.getState().profile).toBeNull();

    // A save of hers whose answer comes once Ben is in: its read of the profile is not his either.
    useSession.getState().signOut({ alreadyRevoked: true });
    useSession.getState().signIn('ana-token');
    const saved = later<unknown>();
    appApi.saveProfile.mockReturnValueOnce(saved.promise);
    appApi.myProfile.mockResolvedValue(anaProfile);
    me.mockResolvedValue(ana);
    const saving = useProfile.getState().save({ name: 'Ana' } as Parameters<ReturnType<typeof useProfile.getState>['save']>[0]);
    useSession.getState().signOut({ alreadyRevoked: true });
    useSession.getState().signIn('ben-token');
    saved.resolve(anaProfile);
    await saving.catch(() => {});
    expect(useProfile.getState().profile).toBeNull();
    expect(appApi.myProfile).toHaveBeenCalledTimes(1);
  });

  it('keeps the last user’s conversation out of the chat', async () => {
    useSession.getState().signIn('ana-token');
    const detail = later<unknown>();
    const messages = later<{ results: unknown[]; next: string | null }>();
    appApi.conversation.mockReturnValueOnce(detail.promise);
    appApi.messages.mockReturnValueOnce(messages.promise);
    const opening = useChat.getState().open(9);
    useSession.getState().signOut({ alreadyRevoked: true });
    useSession.getState().signIn('ben-token');
    detail.resolve({ id: 9, name: 'Ana’s match', other_user_id: 2 });
    messages.resolve({ results: [{ id: 1, sender: 2, content: 'see you at the bar', time: '2026-11-28T01:00:00.000Z' }], next: null });
    await opening;
    expect(useChat.getState().threads).toEqual({});
  });
});
