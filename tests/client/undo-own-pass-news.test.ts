// @vitest-environment jsdom
/**
 * What undo offers after this tab's own pass, whose news (`deck:answered`, sent to every tab of mine,
 * this one too) comes after the card has left the screen and before the pass's answer: the tab knows
 * the card and names it without asking the server, on either plan (the pass's window opened just now,
 * here). A pass on another phone, on someone this deck never held, is still asked of it.
 */
import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { SWIPE_EXIT_MS } from '../../shared/constants';
import type { ReactionResult } from '../../shared/schemas/matching';
import type { DeckCard } from '../../shared/schemas/users';
import { hear } from '../helpers/heard-socket';
import { later } from '../helpers/later';

const api = vi.hoisted(() => ({ react: vi.fn(), deck: vi.fn(), undoable: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));
vi.mock('../../client/lib/socket', async (original) => (await import('../helpers/heard-socket')).heardSocket(await original<object>()));

const { useDecide } = await import('../../client/components/DeckPerks');
const { useDeck } = await import('../../client/stores/deck');
const { usePlan } = await import('../../client/stores/plan');
const { startRealtime, stopRealtime } = await import('../../client/stores/realtime');
const { useSession } = await import('../../client/stores/session');

const card = (id: number, name: string): DeckCard => ({ id, name, age: 30, bio: 'Hi', image: null });
const [ben, cleo, dan] = [card(2, 'Ben'), card(3, 'Cleo'), card(4, 'Dan')];
const subscribed = (has_subscription: boolean) => useSession.setState(({ user }) => ({ user: user && { ...user, has_subscription } }));

beforeEach(() => {
  vi.useFakeTimers();
  useSession.setState({
    token: 't',
    user: { id: 1, email: 'a@b.c', first_name: 'Ana', last_name: 'B', image: null, is_profile_completed: true, has_subscription: false, email_verified: true, has_password: true, is_moderator: false, language: 'es' },
  });
  api.deck.mockResolvedValue({ results: [], next: null });
  api.undoable.mockResolvedValue({ card: dan, expires_at: null, expires_in_ms: 60_000 });
  startRealtime('token');
  useDeck.setState({ current: ben, queue: [cleo], exiting: null });
});
afterEach(() => {
  stopRealtime();
  cleanup();
  useDeck.getState().reset();
  usePlan.getState().reset();
  vi.useRealTimers();
  vi.clearAllMocks();
});

it('names its own pass without asking, when the news of it comes after the card has left', async () => {
  const answer = later<ReactionResult>();
  api.react.mockReturnValueOnce(answer.promise);
  const { result } = renderHook(() => useDecide());
  act(() => void result.current('dislike'));
  // A slow request: the card is gone from the screen when the server stores the pass and tells every tab.
  await act(() => vi.advanceTimersByTimeAsync(SWIPE_EXIT_MS));
  expect(useDeck.getState().current?.id).toBe(cleo.id);
  act(() => hear('deck:answered', { user_id: ben.id, response: 'dislike' }));
  await act(async () => answer.resolve({ match: false, conversation_id: null }));
  expect(usePlan.getState().lastPass?.id).toBe(ben.id);
  expect(api.undoable).not.toHaveBeenCalled();

  // Another phone passes on someone this deck never held: the server names them.
  act(() => hear('deck:answered', { user_id: dan.id, response: 'skip' }));
  await act(() => vi.advanceTimersByTimeAsync(0));
  expect(api.undoable).toHaveBeenCalledTimes(1);
  expect(usePlan.getState().lastPass?.id).toBe(dan.id);
});

it('on the plan too: its own pass opened its window here, and only another phone’s is timed by the server', async () => {
  subscribed(true);
  const answer = later<ReactionResult>();
  api.react.mockReturnValueOnce(answer.promise);
  const { result } = renderHook(() => useDecide());
  act(() => void result.current('skip'));
  // The news comes before the answer, as the server tells every tab before it answers.
  act(() => hear('deck:answered', { user_id: ben.id, response: 'skip' }));
  await act(async () => answer.resolve({ match: false, conversation_id: null }));
  expect(api.undoable).not.toHaveBeenCalled();
  expect(usePlan.getState().lastPass?.id).toBe(ben.id);

  // Cleo, on screen here, passed on another phone: the window opened there, a while ago maybe.
  act(() => hear('deck:answered', { user_id: cleo.id, response: 'dislike' }));
  await act(() => vi.advanceTimersByTimeAsync(0));
  expect(api.undoable).toHaveBeenCalledTimes(1);
  expect(usePlan.getState().lastPass?.id).toBe(dan.id);
});
