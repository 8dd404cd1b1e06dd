import type { Language } from '../../shared/constants';
import { format } from '../../shared/i18n/format';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';
import type { FieldErrors } from '../../shared/schemas/common';
import { loadedMessages } from './i18n';

/** A sentence with values in it ("at least {min} characters"): what it reads as, and the names of its values. */
interface Template {
  pattern: RegExp;
  names: string[];
  other: string;
}

const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

/**
 * A form's errors, said in `from`, as `to` says them (a switch of language under them: `useFieldErrors`
 * in errors.ts, which fetches this module then, as it holds every message of the server). Each line is
 * found among the sentences of `from`, the client's copy and the server's messages, and written as the
 * same sentence of `to`, with the values it held. A line found nowhere (a server's words not in its
 * catalogue yet) is left out, and so is a field left with none: no line stays in the other language.
 */
export function translateErrors(errors: FieldErrors, from: Language, to: Language): FieldErrors {
  const client = loadedMessages(to);
  const pairs: Array<[string, string | undefined]> = [
    ...Object.entries(loadedMessages(from)).map(([key, text]): [string, string | undefined] => [text, client[key as keyof typeof client]]),
    ...Object.values(SERVER_MESSAGES).map((message): [string, string] => [message[from], message[to]]),
  ];
  const exact = new Map<string, string>();
  const templates: Template[] = [];
  for (const [text, other] of pairs) {
    if (other === undefined) continue;
    const names: string[] = [];
    const literal = text.replace(/\{(\w+)\}/g, (_, name: string) => (names.push(name), ''));
    if (names.length === 0) exact.set(text, other);
    // One made of values alone ("{age}") would read as any line.
    else if (literal.trim()) templates.push({ pattern: new RegExp(`^${text.split(/\{\w+\}/).map(escape).join('(.+?)')}$`), names, other });
  }
  const say = (line: string) => {
    const same = exact.get(line);
    if (same !== undefined) return same;
    for (const { pattern, names, other } of templates) {
      const values = pattern.exec(line);
      if (values) return format(other, Object.fromEntries(names.map((name, index) => [name, values[index + 1]!])));
    }
    return undefined;
  };
  const said = Object.entries(errors).map(([field, lines]) => [field, lines.map(say).filter((line) => line !== undefined)] as const);
  return Object.fromEntries(said.filter(([, lines]) => lines.length > 0));
}
