// @vitest-environment jsdom
/**
 * A subscriber's tab asks what undo would bring back when another phone passes on someone
 * (`deck:answered`). When that phone takes the pass back (`deck:undone`) before the answer comes, the
 * answer, asked before the undo, names the person just brought back: it is not offered again.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { Undoable } from '../../shared/schemas/plan';
import type { DeckCard } from '../../shared/schemas/users';
import { hear } from '../helpers/heard-socket';
import { later } from '../helpers/later';

const api = vi.hoisted(() => ({ undoable: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));
vi.mock('../../client/lib/socket', async (original) => (await import('../helpers/heard-socket')).heardSocket(await original<object>()));

const { useDeck } = await import('../../client/stores/deck');
const { usePlan } = await import('../../client/stores/plan');
const { startRealtime, stopRealtime } = await import('../../client/stores/realtime');
const { useSession } = await import('../../client/stores/session');

const card = (id: number, name: string): DeckCard => ({ id, name, age: 30, bio: 'Hi', image: null });
const [ben, cleo] = [card(2, 'Ben'), card(3, 'Cleo')];
const none: Undoable = { card: null, expires_at: null, expires_in_ms: null };

beforeEach(() => {
  useSession.setState({
    token: 't',
    user: { id: 1, email: 'a@b.c', first_name: 'Ana', last_name: 'B', image: null, is_profile_completed: true, has_subscription: true, email_verified: true, has_password: true, is_moderator: false, language: 'es' },
  });
  startRealtime('token');
  useDeck.setState({ current: cleo, queue: [], exiting: null });
});
afterEach(() => {
  stopRealtime();
  useDeck.getState().reset();
  usePlan.getState().reset();
  vi.clearAllMocks();
});

it('does not offer again whom another phone brought back while this tab asked about their pass', async () => {
  const beforeUndo = later<Undoable>();
  api.undoable.mockReturnValueOnce(beforeUndo.promise).mockResolvedValueOnce(none);
  hear('deck:answered', { user_id: ben.id, response: 'skip' });
  expect(api.undoable).toHaveBeenCalledTimes(1);

  // Taken back there: Ben is next in this deck again, and nothing before that skip is left to undo.
  hear('deck:undone', { undone: 'skip', card: ben });
  expect(useDeck.getState().queue?.map((each) => each.id)).toEqual([ben.id]);
  // The answer asked before the undo comes last, naming the skip taken back.
  await new Promise((resolve) => setTimeout(resolve));
  beforeUndo.resolve({ card: ben, expires_at: new Date(Date.now() + 60_000).toISOString(), expires_in_ms: 60_000 });
  await new Promise((resolve) => setTimeout(resolve));
  expect(usePlan.getState().lastPass).toBeNull();
});
