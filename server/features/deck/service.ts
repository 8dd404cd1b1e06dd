import { DECK_PAGE_SIZE } from '../../../shared/constants';
import { ageOn } from '../../../shared/schemas/common';
import type { DeckCard } from '../../../shared/schemas/users';
import { decodeCursor, encodeCursor, integerPart, invalidCursor } from '../conversations/cursor';
import { type Db, rowsOf } from '../../db/client';
import type { Page } from '../conversations/service';
import { type DeckPosition, type DeckRow, deckQuery, type ViewerFit, viewerFitStatement } from './queries';

const CURSOR_SCOPE = 'deck';

function parseCursor(cursor: string): DeckPosition {
  const [tier, activeUs, id] = decodeCursor(cursor, CURSOR_SCOPE, 3);
  if (tier !== '0' && tier !== '1' && tier !== '2') throw invalidCursor();
  return { tier: Number(tier) as DeckPosition['tier'], activeUs: integerPart(activeUs), id: Number(integerPart(id, 10)) };
}

/**
 * The next cards of the user's deck (API.md, "The deck"): the viewer's fit values (a primary-key
 * read), then the one deck statement. An incomplete profile has an empty deck.
 */
export async function getDeck(
  db: Db,
  userId: number,
  options: { cursor?: string; limit?: number } = {},
): Promise<Page<DeckCard>> {
  const limit = options.limit ?? DECK_PAGE_SIZE;
  const after = options.cursor ? parseCursor(options.cursor) : null;
  const [fit] = await viewerFitStatement.run<ViewerFit>(db, { userId });
  if (!fit) return { results: [], next: null };
  const rows = rowsOf<DeckRow>(await db.execute(deckQuery(fit, after, limit + 1)));
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page.at(-1);
  return {
    results: page.map((row) => ({
      id: Number(row.id),
      name: row.name,
      age: ageOn(row.date_of_birth),
      bio: row.bio,
      image: row.image,
    })),
    next: more && last ? encodeCursor(CURSOR_SCOPE, [String(Number(last.tier)), last.active_us, String(last.id)]) : null,
  };
}
