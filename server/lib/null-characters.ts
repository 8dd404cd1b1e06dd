import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../errors';
import { serverText } from '../../shared/i18n/server-messages';

export const NULL_CHARACTERS = serverText('null_characters');

/**
 * The top-level fields whose value holds a NUL anywhere inside. Iterative: a body may nest as
 * deep as JSON.parse allows.
 */
export function fieldsWithNullCharacters(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const found = new Set<string>();
  const stack: [unknown, string][] = [[value, 'non_field_errors']];
  while (stack.length > 0) {
    const [current, field] = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) found.add(field);
    } else if (Array.isArray(current)) {
      for (const item of current) stack.push([item, field]);
    } else if (current && typeof current === 'object' && !Buffer.isBuffer(current)) {
      const top = field === 'non_field_errors' && current === value;
      for (const [key, item] of Object.entries(current)) stack.push([item, top ? key : field]);
    }
  }
  return [...found];
}

/**
 * PostgreSQL cannot store U+0000 in text: without this, a NUL in any field would reach a query
 * and fail as a 500. Refused up front for every body and query string, as DRF's CharField does.
 */
export function rejectNullCharacters(app: FastifyInstance) {
  // Not async: every request passes here, most with no body and no query, and a promise each is not free.
  app.addHook('preValidation', (request, reply, done) => {
    const fields = [...fieldsWithNullCharacters(request.body), ...fieldsWithNullCharacters(request.query)];
    if (fields.length === 0) return done();
    done(new ValidationError(Object.fromEntries(fields.map((field) => [field, [NULL_CHARACTERS]]))));
  });
}
