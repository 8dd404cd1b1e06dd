import { createHmac } from 'node:crypto';
import { DECK_PAGE_SIZE } from '../../../shared/constants';
import { ageOn } from '../../../shared/schemas/common';
import type { DeckCard } from '../../../shared/schemas/users';
import { z } from '../../../shared/schemas/zod';
import type { Db } from '../../db/client';
import { type Slice, sliceOf } from '../../lib/page';
import { type DeckPosition, type DeckRow, deckStatement, deckValues, type ViewerFit, viewerFitStatement } from './queries';

/** A deck cursor, once opened: checked again, since its parts are written into the deck statement. */
export const DeckPositionSchema: z.ZodType<DeckPosition> = z.object({
  tier: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  activeUs: z.string().regex(/^\d{1,18}$/),
  id: z.number().int().min(1).max(2_147_483_647),
});

/**
 * The next cards of the user's deck: the viewer's fit values (a primary-key read), then the one
 * deck statement. An incomplete profile has an empty deck.
 */
export async function getDeck(
  db: Db,
  userId: number,
  /** Places the people who liked me among the first cards (`mixInLikers`). */
  likersKey: Buffer,
  options: { after?: DeckPosition | null; limit?: number } = {},
): Promise<Slice<DeckCard, DeckPosition>> {
  const limit = options.limit ?? DECK_PAGE_SIZE;
  // On the event deck's pool, whose few backends the decks keep at work, rather than waking one of the
  // main pool's for a primary-key read (`deckPoolSize`).
  const [fit] = await viewerFitStatement.runWithGenericPlan<ViewerFit>(db, { userId });
  if (!fit) return { results: [], next: null };
  const after = options.after ?? null;
  const statement = deckStatement(fit, after);
  const values = deckValues(fit, after, limit + 1);
  // Town-wide, the best plan depends on the viewer's ages and genders: planned for them every time.
  // Within an event, the statement's text fixes the plan (the room, walked in the deck's order): it
  // is made once per connection and reused, where planning it had cost more than running it.
  const rows =
    fit.event_id === null
      ? await statement.runWithCustomPlan<DeckRow>(db, values)
      : await statement.runWithGenericPlan<DeckRow>(db, values);
  const today = new Date();
  const slice = sliceOf(
    rows,
    limit,
    (row) => ({ row, card: { id: Number(row.id), name: row.name, age: ageOn(row.date_of_birth, today), bio: row.bio, image: row.image } }),
    (row) => ({ tier: Number(row.tier) as DeckPosition['tier'], activeUs: row.active_us, id: Number(row.id) }),
  );
  // The cursor is the statement's order; only the cards shown are mixed.
  return { results: mixInLikers(likersKey, userId, slice.results), next: slice.next };
}

/** How far among the unseen cards someone who liked me may be placed: early, and not told apart. */
export const LIKERS_MIXED_WITHIN = 10;

/**
 * The people who liked me (the statement's first tier) placed among the page's first unseen cards,
 * each at a place of its own, instead of all of them first: the count of likes a free user sees
 * must not tell them which cards liked them (who likes you is a perk of the plan). The place comes
 * from a keyed hash of the pair, so a page asked again (a refresh, a reload) shows the same order,
 * and nobody without the deployment's secret can work out from the ids where the likers went.
 */
function mixInLikers(key: Buffer, viewerId: number, page: Array<{ row: DeckRow; card: DeckCard }>): DeckCard[] {
  const ofTier = (tier: DeckPosition['tier']) => page.filter(({ row }) => Number(row.tier) === tier).map(({ card }) => card);
  const unseen = ofTier(1);
  const mixed = [...unseen];
  ofTier(0).forEach((liker, index) => {
    const places = Math.min(unseen.length, LIKERS_MIXED_WITHIN) + index + 1;
    mixed.splice(createHmac('sha256', key).update(`${viewerId}:${liker.id}`).digest().readUInt32BE(0) % places, 0, liker);
  });
  return [...mixed, ...ofTier(2)];
}
