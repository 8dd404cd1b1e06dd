/** A page of a list as the API returns it: `next` is an opaque cursor, or null on the last page. */
export interface Page<T> {
  results: T[];
  next: string | null;
}

/** A page as a service returns it: `next` is where the following page starts, not yet sealed. */
export interface Slice<T, P> {
  results: T[];
  next: P | null;
}

/**
 * A slice from rows fetched with `limit + 1`: the extra row only says that there is more, and the
 * following page starts after the last row shown.
 */
export function sliceOf<Row, T, P>(
  rows: Row[],
  limit: number,
  present: (row: Row) => T,
  positionOf: (row: Row) => P,
): Slice<T, P> {
  const shown = rows.length > limit ? rows.slice(0, limit) : rows;
  const last = shown.at(-1);
  return { results: shown.map(present), next: rows.length > limit && last ? positionOf(last) : null };
}
