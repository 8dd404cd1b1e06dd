// @vitest-environment jsdom
/**
 * "Likes you": the next page ("more") and a read of the list again (an unblock's, an undo's, a
 * reconnect's) can be out at once. Only answers for the list as it is read now land: a page asked
 * from the old list's cursor, answered after the read, neither brings back whom the read left out nor
 * puts its old cursor back: the page the user asked for is asked again from the read's. Nor does a
 * page or a read bring back someone answered, here or on another phone, while it was on its way; nor
 * an answer from the list that failed, someone another phone answered meanwhile.
 */
import { afterEach, expect, it, vi } from 'vitest';
import type { DeckCard } from '../../shared/schemas/users';

/** Each request to "likes you", answered when the test says (`answer`). */
interface Asked {
  cursor: string | undefined;
  answer: (page: { count: number; results: DeckCard[]; next: string | null }) => void;
}
const asked = vi.hoisted(() => [] as Asked[]);
/** Each reaction sent, answered (or failed) when the test says. */
const reactions = vi.hoisted(() => [] as { answer: () => void; fail: () => void; gone: () => void }[]);
vi.mock('../../client/lib/api-app', () => ({
  api: {
    likesYou: (cursor?: string) => new Promise((resolve) => asked.push({ cursor, answer: resolve })),
    react: () =>
      new Promise((resolve, reject) =>
        reactions.push({
          answer: () => resolve({ match: false, conversation_id: null }),
          fail: () => reject(new Error('The server failed')),
          gone: () => void import('../../client/lib/api').then(({ NotFound }) => reject(new NotFound(404, 'Not found.'))),
        }),
      ),
  },
}));

const { useLikes } = await import('../../client/stores/likes');

afterEach(() => {
  useLikes.getState().reset();
  asked.length = 0;
  reactions.length = 0;
});

const card = (id: number): DeckCard => ({ id, name: `Person ${id}`, age: 30, bio: '', image: null });
const ids = () => useLikes.getState().people?.map((person) => person.id);
/** The request not answered yet, asked `n`-th (from 0). */
const request = async (n: number) => {
  await vi.waitFor(() => expect(asked.length).toBeGreaterThan(n));
  return asked[n]!;
};

/** Whatever the answers given so far set off has run. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));
/** The list's first page held: 1 and 2, then more from `c1`. */
async function firstPage() {
  const load = useLikes.getState().load();
  (await request(0)).answer({ count: 4, results: [card(1), card(2)], next: 'c1' });
  await load;
  expect(ids()).toEqual([1, 2]);
}

it('drops a page asked before a read again that answered first, and asks it from the read\'s cursor', async () => {
  await firstPage();
  const more = useLikes.getState().more();
  const older = await request(1);
  expect(older.cursor).toBe('c1');

  // Read again (3 answered on another phone since): the list as it is now.
  const load = useLikes.getState().load();
  (await request(2)).answer({ count: 3, results: [card(1), card(2)], next: 'c2' });
  await load;
  expect(ids()).toEqual([1, 2]);

  // The old page lands last: 3 stays out, and the cursor stays the read's.
  older.answer({ count: 4, results: [card(3), card(4)], next: 'c3' });
  await settled();
  expect(ids()).toEqual([1, 2]);
  expect(useLikes.getState()).toMatchObject({ count: 3, next: 'c2', loadingMore: true });

  // The page the user asked for comes from there.
  const again = await request(3);
  expect(again.cursor).toBe('c2');
  again.answer({ count: 3, results: [card(4)], next: null });
  await more;
  expect(useLikes.getState()).toMatchObject({ count: 3, next: null, loadingMore: false });
  expect(ids()).toEqual([1, 2, 4]);
});

it('asks "more" from the cursor of a read on its way, once it has answered', async () => {
  await firstPage();
  const load = useLikes.getState().load();
  const reading = await request(1);
  const more = useLikes.getState().more();
  reading.answer({ count: 3, results: [card(1), card(2)], next: 'c2' });
  await load;

  const page = await request(2);
  expect(page.cursor).toBe('c2');
  page.answer({ count: 3, results: [card(4)], next: null });
  await more;
  expect(useLikes.getState()).toMatchObject({ count: 3, next: null, loadingMore: false });
  expect(ids()).toEqual([1, 2, 4]);
});

it('leaves out of a page someone answered on another phone while it was on its way', async () => {
  await firstPage();
  const more = useLikes.getState().more();
  const page = await request(1);

  // Disliked on another phone: not held yet, they are on the page the server read before that.
  useLikes.getState().answered(3, false);
  page.answer({ count: 4, results: [card(3), card(4)], next: null });
  await more;
  expect(ids()).toEqual([1, 2, 4]);
  expect(useLikes.getState()).toMatchObject({ count: 3, next: null, loadingMore: false });
});

it('leaves out of a read again someone answered on another phone while it was on its way', async () => {
  await firstPage();
  const load = useLikes.getState().load();
  const reading = await request(1);

  // Disliked on another phone: they leave the list held, and the read asked before may hold them still.
  useLikes.getState().answered(2, false);
  expect(ids()).toEqual([1]);
  reading.answer({ count: 4, results: [card(1), card(2)], next: 'c1' });
  await load;
  expect(ids()).toEqual([1]);
  expect(useLikes.getState().count).toBe(3);
});

it('leaves out of a read again someone answered from the list while it was on its way', async () => {
  await firstPage();
  const load = useLikes.getState().load();
  const reading = await request(1);

  // Disliked here, before deck:answered comes back: the read, asked before, holds them still.
  const answer = useLikes.getState().answer(card(2), 'dislike');
  expect(ids()).toEqual([1]);
  await vi.waitFor(() => expect(reactions).toHaveLength(1));
  reactions[0]!.answer();
  await answer;
  reading.answer({ count: 4, results: [card(1), card(2)], next: 'c1' });
  await load;
  expect(ids()).toEqual([1]);
  expect(useLikes.getState().count).toBe(3);
});

it('keeps in a read again someone whose answer from the list failed while it was on its way', async () => {
  await firstPage();
  const load = useLikes.getState().load();
  const reading = await request(1);

  const answer = useLikes.getState().answer(card(2), 'dislike');
  await vi.waitFor(() => expect(reactions).toHaveLength(1));
  reactions[0]!.fail();
  await expect(answer).rejects.toThrow('The server failed');
  expect(ids()).toEqual([1, 2]);
  reading.answer({ count: 4, results: [card(1), card(2)], next: 'c1' });
  await load;
  expect(ids()).toEqual([1, 2]);
  expect(useLikes.getState().count).toBe(4);
});

it('keeps out someone answered on another phone while the answer from the list failed', async () => {
  await firstPage();
  const load = useLikes.getState().load();
  const reading = await request(1);

  // Disliked here and, meanwhile, on another phone: that one was stored, whatever becomes of this one.
  const answer = useLikes.getState().answer(card(2), 'dislike');
  await vi.waitFor(() => expect(reactions).toHaveLength(1));
  useLikes.getState().answered(2, false);
  reactions[0]!.fail();
  await expect(answer).rejects.toThrow('The server failed');
  expect(ids()).toEqual([1]);
  expect(useLikes.getState().count).toBe(3);

  // The read, asked before either, holds them still.
  reading.answer({ count: 4, results: [card(1), card(2)], next: 'c1' });
  await load;
  expect(ids()).toEqual([1]);
  expect(useLikes.getState().count).toBe(3);
});

it('drops for good someone whose account is gone (404): not back in the list, no error', async () => {
  await firstPage();
  // Deleted by the admin command, which tells no open app: this one finds out from the answer.
  const answer = useLikes.getState().answer(card(2), 'like');
  await vi.waitFor(() => expect(reactions).toHaveLength(1));
  reactions[0]!.gone();
  await expect(answer).resolves.toBeUndefined();
  expect(ids()).toEqual([1]);
  expect(useLikes.getState().count).toBe(3);
});
