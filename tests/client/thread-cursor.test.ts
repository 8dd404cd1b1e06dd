/** The one rule for how far a conversation is heard, that the chat store and the load tool share. */
import { describe, expect, it } from 'vitest';
import { heardAlready, heardUpTo, pushHeard, type ThreadCursor, unheard } from '../../shared/thread-cursor';

/** Pushes heard in turn, as [id, previous id]; each cursor frozen, so that one changed in place throws. */
const pushes = (from: ThreadCursor, ...heard: Array<[number, number | null]>) =>
  heard.reduce((cursor, [id, previousId]) => pushHeard(Object.freeze({ ...cursor, ahead: Object.freeze(cursor.ahead) }), id, previousId), from);

describe('a conversation’s cursor', () => {
  it('moves along pushes that follow on, from the first message on (its previous is null)', () => {
    expect(pushes(unheard, [3, null], [5, 3])).toEqual({ heardTo: 5, ahead: {} });
  });

  it('keeps pushes heard ahead until the one between comes, then runs along them', () => {
    const waiting = pushes(unheard, [5, null], [7, 6], [9, 8], [8, 7]);
    expect(waiting).toEqual({ heardTo: 5, ahead: { 6: 7, 7: 8, 8: 9 } });
    expect(pushHeard(waiting, 6, 5)).toEqual({ heardTo: 9, ahead: {} });
    // Only as far as the chain reaches: 12 waits for 11.
    expect(pushes(unheard, [5, null], [7, 6], [12, 11], [6, 5])).toEqual({ heardTo: 7, ahead: { 11: 12 } });
  });

  it('tells a push heard already from one that came early; one heard already moves nothing', () => {
    const cursor = pushes(unheard, [5, null], [8, 6]);
    expect(heardAlready(cursor, 5, null)).toBe(true);
    expect(heardAlready(cursor, 4, 3)).toBe(true);
    // Pushed twice while ahead: no news either.
    expect(heardAlready(cursor, 8, 6)).toBe(true);
    expect(heardAlready(cursor, 6, 5)).toBe(false);
    expect(heardAlready(cursor, 10, 9)).toBe(false);
    expect(pushes(cursor, [5, null], [4, 3], [8, 6])).toEqual(cursor);
  });

  it('moves with a page up to its newest, and on over the pushes ahead that follow on from there', () => {
    const cursor = pushes(unheard, [5, null], [8, 7], [10, 9]);
    // The socket dropped before 6 and 7 came: a page after 5 reaches 7, and 8 follows on.
    expect(heardUpTo(cursor, 7)).toEqual({ heardTo: 8, ahead: { 9: 10 } });
  });

  it('forgets the pushes ahead a page reached past: pushed again, they are heard already', () => {
    const fetched = heardUpTo(pushes(unheard, [5, null], [8, 6], [12, 11]), 9);
    expect(fetched).toEqual({ heardTo: 9, ahead: { 11: 12 } });
    expect(heardAlready(fetched, 8, 6)).toBe(true);
    expect(heardAlready(fetched, 6, 5)).toBe(true);
  });

  it('stays where it is with a page that reaches no further', () => {
    const cursor = pushes(unheard, [5, null], [8, 6]);
    expect(heardUpTo(cursor, 5)).toEqual(cursor);
    expect(heardUpTo(cursor, 0)).toEqual(cursor);
  });

  it('takes a push that does not say what came before it (an older instance’s, in a rolling deploy) as not known to follow on', () => {
    // Not the conversation's first for all it knows, nor the one after 5: it moves nothing.
    expect(pushHeard(unheard, 10, undefined)).toEqual(unheard);
    const cursor = pushes(unheard, [5, null]);
    expect(pushHeard(cursor, 6, undefined)).toEqual(cursor);
    // Nor is it taken for one heard ahead: pushed again, with or without what came before it, it is news.
    expect(heardAlready(pushHeard(cursor, 7, undefined), 7, undefined)).toBe(false);
    expect(heardAlready(pushes(unheard, [5, null], [7, 6]), 7, undefined)).toBe(false);
    // One heard already still is.
    expect(heardAlready(cursor, 5, undefined)).toBe(true);
  });

  it('answers the cursor alone, whatever else the value it is given holds', () => {
    const thread = { ...pushes(unheard, [5, null]), messages: [5] };
    expect(pushHeard(thread, 6, 5)).toEqual({ heardTo: 6, ahead: {} });
    expect(pushHeard(thread, 5, null)).toEqual({ heardTo: 5, ahead: {} });
    expect(heardUpTo(thread, 4)).toEqual({ heardTo: 5, ahead: {} });
  });
});
