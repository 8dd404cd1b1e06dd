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
 */
export interface Cursors {
  open<P>(scope: string, cursor: string | undefined, position: ZodType<P>): P | null;
  page<T, P>(scope: string, slice: Slice<T, P>): Page<T>;
}

export function createCursors(sealer: Sealer): Cursors {
  const purpose = (scope: string) => `cursor:${scope}`;
  return {
    open(scope, cursor, position) {
      if (cursor === undefined) return null;
      const parsed = position.safeParse(sealer.open(purpose(scope), cursor));
      if (!parsed.success) throw invalidCursor();
      return parsed.data;
    },
    page(scope, slice) {
      return { results: slice.results, next: slice.next === null ? null : sealer.seal(purpose(scope), slice.next) };
    },
  };
}
