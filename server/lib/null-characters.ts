import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { ApiError, type FieldMessages, ValidationError } from '../errors';
import { documentedContentType } from '../plugins/api-docs';
import { MAX_JSON_BODY_BYTES } from '../../shared/constants';
import { type ServerText, serverText } from '../../shared/i18n/server-messages';
import { hasLoneSurrogate } from '../../shared/well-formed-text';

export const NULL_CHARACTERS = serverText('null_characters');
export const MALFORMED_TEXT = serverText('malformed_text');

/** What a string may hold that cannot be stored as sent, and what the field's message says of it. */
const UNSTORABLE: ReadonlyArray<readonly [(text: string) => boolean, ServerText]> = [
  [(text) => text.includes('\u0000'), NULL_CHARACTERS],
  [hasLoneSurrogate, MALFORMED_TEXT],
];

/**
 * The top-level fields with a string anywhere inside that cannot be stored as sent, each with its
 * messages, found in one walk. Iterative: a body may nest as deep as JSON.parse allows.
 */
function unstorableFields(value: unknown, into: FieldMessages) {
  if (value === undefined || value === null) return;
  const stack: [unknown, string][] = [[value, 'non_field_errors']];
  while (stack.length > 0) {
    const [current, field] = stack.pop()!;
    if (typeof current === 'string') {
      for (const [test, text] of UNSTORABLE) {
        if (!test(current)) continue;
        const texts = (into[field] ??= []);
        if (!texts.includes(text)) texts.push(text);
      }
    } else if (Array.isArray(current)) {
      for (const item of current) stack.push([item, field]);
    } else if (current && typeof current === 'object' && !Buffer.isBuffer(current)) {
      const top = field === 'non_field_errors' && current === value;
      for (const [key, item] of Object.entries(current)) stack.push([item, top ? key : field]);
    }
  }
}

/**
 * Text that could not be stored as it was sent, refused up front for every body and query string:
 * PostgreSQL cannot store U+0000 (without this, a NUL in any field would reach a query and fail as a
 * 500; DRF's CharField refuses it too), and half of a surrogate pair (JSON's `"\uD800"`) would be
 * written as U+FFFD, the sender's text changed without a word.
 */
export function rejectNullCharacters(app: FastifyInstance) {
  // Not async: every request passes here, most with no body and no query, and a promise each is not free.
  app.addHook('preValidation', (request, reply, done) => {
    // No route (a page of the app, a missing file): nothing is read from it to be stored, and a page's
    // link, mangled on its way, opens the app, which says what is wrong with it.
    if (request.is404) return done();
    const errors: FieldMessages = {};
    unstorableFields(request.body, errors);
    unstorableFields(request.query, errors);
    if (Object.keys(errors).length === 0) return done();
    done(new ValidationError(errors));
  });
}

/**
 * The most values (JSON's `{ [ , :` outside strings) a body over `MAX_JSON_BODY_BYTES` may hold. Only
 * the profile's save takes one, for its photos: a dozen fields and six strings, some 40 of them. A body
 * that large made of tiny values (nested lists, an object of 300,000 keys) would hold the event loop
 * for seconds in JSON.parse alone, and its 400 would name every key.
 */
export const MAX_LARGE_BODY_VALUES = 1000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENS_OR_SEPARATES = new Set([0x7b, 0x5b, 0x2c, 0x3a]);

/**
 * Whether the JSON in `bytes` has more than `limit` values, counted without parsing it. Linear, and
 * cheap for a body of long strings (photos in base64): a string is skipped by the native `indexOf` to
 * its closing quote, one not escaped by an odd run of backslashes before it.
 */
export function holdsMoreValues(bytes: Buffer, limit: number): boolean {
  let count = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === QUOTE) {
      let end = bytes.indexOf(QUOTE, i + 1);
      for (;;) {
        if (end === -1) return false; // Not JSON: the parser says so.
        let backslashes = 0;
        while (bytes[end - 1 - backslashes] === BACKSLASH) backslashes++;
        if (backslashes % 2 === 0) break;
        end = bytes.indexOf(QUOTE, end + 1);
      }
      i = end;
    } else if (OPENS_OR_SEPARATES.has(byte) && ++count > limit) {
      return true;
    }
  }
  return false;
}

/**
 * A JSON body whose bytes are not UTF-8 is refused as its text would be (400, `malformed_text`): read
 * as a string, each bad byte would become U+FFFD and be stored, the text changed without a word. A body
 * over `MAX_JSON_BODY_BYTES` (a route that raised its limit) with more values than `MAX_LARGE_BODY_VALUES`
 * is refused before it is parsed (400, `too_many_values`). Fastify's own JSON parser does the rest
 * (empty bodies, bad JSON, prototype poisoning).
 *
 * A route whose body is of another type (an upload's multipart) is given none, not parsed: it answers
 * JSON's wrong type itself (415), the same whatever the JSON holds, broken or not.
 */
export function rejectMalformedJson(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const type = documentedContentType(request.routeOptions.schema);
    if (type !== undefined && type !== 'application/json') return done(null, undefined);
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) return done(ValidationError.field('non_field_errors', MALFORMED_TEXT), undefined);
    if (bytes.length > MAX_JSON_BODY_BYTES && holdsMoreValues(bytes, MAX_LARGE_BODY_VALUES)) {
      return done(new ApiError(400, { detail: serverText('too_many_values') }), undefined);
    }
    parse(request, bytes.toString('utf8'), done);
  });
}
