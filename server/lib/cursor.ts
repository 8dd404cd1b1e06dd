import type { ZodType } from 'zod';
import { serverText } from '../../shared/i18n/server-messages';
import { ValidationError } from '../errors';
import type { Page, Slice } from './page';
import type { Sealer } from './sealed';

export const INVALID_CURSOR = serverText('invalid_cursor');

export const invalidCursor = () => ValidationError.field('cursor', INVALID_CURSOR);

/**
 * Opaque list cursors: a position in a list, sealed, so that a cursor reveals nothing (not a tier, a
 * time or an id) and cannot be forged. Each list has its own scope: a cursor of one list is refused by
 * another. Anything that does not open, or opens to something unexpected, is a 400 on `cursor`.
 *
 * A list that is one user's own (the deck, who likes me) names its `owner` on both sides: the cursor
 * then opens for that user only. Replayed by another account, a position of someone else's list would
 * still steer theirs (where it resumes tells which tier the card it names was in: whether it liked
 * the cursor's owner), so it is a foreign cursor, a 400.
 */
export interface Cursors {
  open<P>(scope: string, cursor: string | undefined, position: ZodType<P>, owner?: number): P | null;
  page<T, P>(scope: string, slice: Slice<T, P>, owner?: number): Page<T>;
}

/** What an owned cursor seals: the position, and whose list it is. */
interface Owned {
  by: number;
  at: unknown;
}

const isOwnedBy = (value: unknown, owner: number): value is Owned =>
  typeof value === 'object' && value !== null && (value as Owned).by === owner && 'at' in value;

export function createCursors(sealer: Sealer): Cursors {
  const purpose = (scope: string) => `cursor:${scope}`;
  return {
    open(scope, cursor, position, owner) {
      if (cursor === undefined) return null;
      let opened = sealer.open(purpose(scope), cursor);
      if (owner !== undefined) {
        if (!isOwnedBy(opened, owner)) throw invalidCursor();
        opened = opened.at;
      }
      const parsed = position.safeParse(opened);
      if (!parsed.success) throw invalidCursor();
      return parsed.data;
    },
    page(scope, slice, owner) {
      if (slice.next === null) return { results: slice.results, next: null };
      const sealed: unknown = owner === undefined ? slice.next : ({ by: owner, at: slice.next } satisfies Owned);
      return { results: slice.results, next: sealer.seal(purpose(scope), sealed) };
    },
  };
}
