/**
 * How far a phone has heard a conversation: up to `heardTo`, every message with none missing before
 * it, from pushes that follow on from there (`message:new`'s `previous_id`) and from the server's
 * pages. Pushes can overtake each other (a batched send, another instance's), and the socket may drop
 * before the one between comes, so one that does not follow on waits in `ahead` until the one before it
 * comes (the app reads the chat after `heardTo` then: the one between may never be pushed). A
 * catch-up starts after `heardTo`: what was pushed ahead of a message never heard is fetched, not
 * missed, and a push that overtook another is not taken for one heard twice. The app's chat store
 * and the load tool keep a conversation by this one rule.
 */
export interface ThreadCursor {
  /** The newest message heard with none missing before it (0: none yet). */
  readonly heardTo: number;
  /** Pushes heard ahead of `heardTo`, by the id of the message stored just before each. */
  readonly ahead: Readonly<Record<number, number>>;
}

export const unheard: ThreadCursor = { heardTo: 0, ahead: {} };

/**
 * A push heard already: pushed twice, or fetched first; not one that came ahead of the one before it.
 * `previousId`: the message stored just before it (null: the conversation's first; undefined: not
 * told, by an instance of an older version during a rolling deploy: unknown, not the first).
 */
export const heardAlready = ({ heardTo, ahead }: ThreadCursor, id: number, previousId: number | null | undefined) =>
  id <= heardTo || (previousId !== undefined && ahead[previousId ?? 0] === id);

/**
 * A pushed message heard: `heardTo` moves only if it follows on from there (`previousId`). One that
 * does not say what came before it moves nothing: a message between may have been missed, and only a
 * page of the server's tells.
 */
export function pushHeard({ heardTo, ahead }: ThreadCursor, id: number, previousId: number | null | undefined): ThreadCursor {
  if (id <= heardTo || previousId === undefined) return { heardTo, ahead };
  const previous = previousId ?? 0;
  return previous === heardTo ? movedTo(ahead, id) : { heardTo, ahead: { ...ahead, [previous]: id } };
}

/**
 * Every message up to `newest` heard: a page of the server's, which holds every message between its
 * first and its last and starts at or before `heardTo`, or a cursor reached before.
 */
export const heardUpTo = ({ heardTo, ahead }: ThreadCursor, newest: number): ThreadCursor => movedTo(ahead, Math.max(heardTo, newest));

/** `heardTo` moved to `to`, and on over the pushes heard ahead that follow on from there. */
function movedTo(ahead: ThreadCursor['ahead'], to: number): ThreadCursor {
  let heardTo = to;
  while (ahead[heardTo] !== undefined) heardTo = ahead[heardTo]!;
  // Those before it are heard now (a page reached past them): a push of one of them is a second one.
  return { heardTo, ahead: Object.fromEntries(Object.entries(ahead).filter(([previous]) => Number(previous) > heardTo)) };
}
