import type { FastifyInstance } from 'fastify';
import { type FieldMessages, ValidationError } from '../errors';
import { serverText } from '../../shared/i18n/server-messages';
import { hasLoneSurrogate } from '../../shared/well-formed-text';

export const NULL_CHARACTERS = serverText('null_characters');
export const MALFORMED_TEXT = serverText('malformed_text');

/**
 * The top-level fields with a string anywhere inside that `test` finds. Iterative: a body may nest as
 * deep as JSON.parse allows.
 */
function fieldsWhere(value: unknown, test: (text: string) => boolean): string[] {
  if (value === undefined || value === null) return [];
  const found = new Set<string>();
  const stack: [unknown, string][] = [[value, 'non_field_errors']];
  while (stack.length > 0) {
    const [current, field] = stack.pop()!;
    if (typeof current === 'string') {
      if (test(current)) found.add(field);
    } else if (Array.isArray(current)) {
      for (const item of current) stack.push([item, field]);
    } else if (current && typeof current === 'object' && !Buffer.isBuffer(current)) {
      const top = field === 'non_field_errors' && current === value;
      for (const [key, item] of Object.entries(current)) stack.push([item, top ? key : field]);
    }
  }
  return [...found];
}

const hasNul = (text: string) => text.includes('\u0000');

export const fieldsWithNullCharacters = (value: unknown) => fieldsWhere(value, hasNul);

/**
 * Text that could not be stored as it was sent, refused up front for every body and query string:
 * PostgreSQL cannot store U+0000 (without this, a NUL in any field would reach a query and fail as a
 * 500; DRF's CharField refuses it too), and half of a surrogate pair (JSON's `"\uD800"`) would be
 * written as U+FFFD, the sender's text changed without a word.
 */
export function rejectNullCharacters(app: FastifyInstance) {
  // Not async: every request passes here, most with no body and no query, and a promise each is not free.
  app.addHook('preValidation', (request, reply, done) => {
    const errors: FieldMessages = {};
    for (const [test, text] of [
      [hasNul, NULL_CHARACTERS],
      [hasLoneSurrogate, MALFORMED_TEXT],
    ] as const) {
      for (const field of [...fieldsWhere(request.body, test), ...fieldsWhere(request.query, test)]) (errors[field] ??= []).push(text);
    }
    if (Object.keys(errors).length === 0) return done();
    done(new ValidationError(errors));
  });
}
