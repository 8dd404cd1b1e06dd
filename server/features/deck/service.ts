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
  options: { after?: DeckPosition | null; limit?: number } = {},
): Promise<Slice<DeckCard, DeckPosition>> {
  const limit = options.limit ?? DECK_PAGE_SIZE;
  const [fit] = await viewerFitStatement.run<ViewerFit>(db, { userId });
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
  return sliceOf(
    rows,
    limit,
    (row) => ({ id: Number(row.id), name: row.name, age: ageOn(row.date_of_birth, today), bio: row.bio, image: row.image }),
    (row) => ({ tier: Number(row.tier) as DeckPosition['tier'], activeUs: row.active_us, id: Number(row.id) }),
  );
}
