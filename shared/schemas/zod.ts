import { z } from 'zod';
import type { $ZodRawIssue } from 'zod/v4/core';
import { renderServerMessage, type ServerMessageCode, type ServerText, serverText } from '../i18n/server-messages';

type RawIssue = $ZodRawIssue;

/** A zod issue's message as the server's coded text (Django REST framework's words), or null for zod's own. */
function issueText(issue: RawIssue): ServerText | null {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return serverText('required');
      if (issue.input === null) return serverText('not_null');
      if (issue.expected === 'string') return serverText('not_string');
      if (issue.expected === 'number' || issue.expected === 'int') return serverText('not_integer');
      if (issue.expected === 'boolean') return serverText('not_boolean');
      if (issue.expected === 'array') return serverText('not_list');
      if (issue.expected === 'object') return serverText('not_object');
      return serverText('invalid');
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') return min === 1 ? serverText('blank') : serverText('min_length', { min });
      if (issue.origin === 'array') return min === 1 ? serverText('list_empty') : serverText('min_items', { min });
      return serverText('min_value', { min });
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return serverText('max_length', { max });
      if (issue.origin === 'array') return serverText('max_items', { max });
      return serverText('max_value', { max });
    }
    case 'invalid_value':
      // A missing enum field is missing, not a bad choice.
      if (issue.input === undefined) return serverText('required');
      if (issue.input === null) return serverText('not_null');
      return serverText('invalid_choice', { value: String(issue.input) });
    case 'invalid_format':
      if (issue.format === 'email') return serverText('invalid_email');
      if (issue.format === 'uuid') return serverText('invalid_uuid');
      return serverText('invalid_format');
    default:
      return null;
  }
}

/**
 * Writes the message in English (zod needs a string now) and keeps its code on the issue, in `params`
 * beside it: the server writes it again in the request's language when it answers. zod copies an
 * issue's own keys after its message is made; tests/server/server-messages.test.ts holds it to that.
 */
function coded(issue: RawIssue, text: ServerText): string {
  (issue as { params?: unknown }).params = { text };
  return renderServerMessage(text, 'en');
}

/** The one configured zod instance: every issue's message is a coded server message (shared/i18n/server-messages.ts). */
z.config({
  customError: (issue) => {
    const text = issueText(issue);
    return text ? coded(issue, text) : undefined;
  },
});

/**
 * A check's own message, as a code: `.refine(check, message('genders_once'))`, or a schema's
 * (`z.string({ error: message('date_of_birth_required') })`).
 */
export function message(code: ServerMessageCode, params?: Record<string, string | number>) {
  return { error: (issue: RawIssue) => coded(issue, serverText(code, params)) };
}

/**
 * An issue of a check across fields, for `superRefine`: `context.addIssue(codedIssue(['ends_at'],
 * 'event_too_long', { hours: 48 }))`, coded as `message` codes a check's own.
 */
export const codedIssue = (path: PropertyKey[], code: ServerMessageCode, params?: Record<string, string | number>) =>
  textIssue(path, serverText(code, params));

/** The same for a server message already made (`serverText`), such as the password rules' verdicts. */
export function textIssue(path: PropertyKey[], text: ServerText) {
  return { code: 'custom' as const, path, message: renderServerMessage(text, 'en'), params: { text } };
}

/** The coded text a finished issue carries (every issue made through this module has one). */
export function textOfIssue(issue: { message: string; params?: unknown }): ServerText | string {
  const text = (issue.params as { text?: ServerText } | undefined)?.text;
  return text ?? issue.message;
}

export { z };
