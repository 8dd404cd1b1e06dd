import { ValidationError } from '../../errors';
import { serverText } from '../../../shared/i18n/server-messages';

export const INVALID_CURSOR = serverText('invalid_cursor');

/**
 * Opaque keyset cursors: base64url of `scope:part:part…`. The scope keeps a cursor of one list from
 * being replayed against another.
 */
export function encodeCursor(scope: string, parts: string[]): string {
  return Buffer.from([scope, ...parts].join(':')).toString('base64url');
}

/** The parts of a cursor made by `encodeCursor` for this scope; a 400 on `cursor` for anything else. */
export function decodeCursor(cursor: string, scope: string, arity?: number): string[] {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw invalidCursor();
  const [head, ...parts] = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
  if (head !== scope || (arity !== undefined && parts.length !== arity)) throw invalidCursor();
  return parts;
}

export const invalidCursor = () => ValidationError.field('cursor', INVALID_CURSOR);

/** A non-negative integer part of a cursor (ids, epoch microseconds), kept as a string for exactness. */
export function integerPart(value: string | undefined, maxDigits = 18): string {
  if (!value || !new RegExp(`^\\d{1,${maxDigits}}$`).test(value)) throw invalidCursor();
  return value;
}
