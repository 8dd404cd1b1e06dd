import LinkifyIt from 'linkify-it';

/** A piece of a message: plain text, or a link and where it leads. */
export interface TextPart {
  text: string;
  href?: string;
}

/**
 * Web addresses (with or without `https://`, "instagram.com/ana" too) and e-mail addresses; not
 * protocol-relative `//host` or `ftp:`, which nobody at a party types.
 */
const linkify = new LinkifyIt().add('ftp:', null).add('//', null);

/**
 * Quotes, guillemets, a Spanish ¿¡, a dialogue's dash or an ellipsis opening an e-mail address:
 * linkify-it finds an address only after a space or a bracket, so these are read as spaces (one for one,
 * the positions kept). Only at the start of a word (a bracket may come first), or after a word and the
 * colon or comma that end it ("correo:«ana@…»"): inside a word or an address, a quote is part of it, of
 * a web address ("x.com/ana'sofia@…", "x.com/?a=1,'b@…") or of a name ("o'neil@…"), and read as a space
 * it would cut the address in two.
 */
const OPENING_MARKS = /((?:^|\s)[([{]?(?:[\p{L}\p{M}\p{N}]+[:;,])?)[([{«‹“‘„'¿¡—–…]+(?=[\w.+-]+@)/gu;

/**
 * A word, in any alphabet, and the @ after it if any: a name before an @ is where linkify-it reads only
 * a-z, 0-9 and signs, and would not link "josé@correo.es" (nor "núñez.ana@…") when it links
 * "ana@españa.es", letters beyond ASCII and all. (Whole words, the @ optional: one pass over the text.)
 */
const WORD = /[\p{L}\p{M}\p{N}._+-]+@?/gu;

/**
 * The mailbox itself at the end of an e-mail match: linkify-it also takes in the `:;,&=$"` before it,
 * so "correo:ana@x.es" wrote to "correo:ana", and a comma in a `mailto:` adds a second recipient.
 */
const MAILBOX = /[\p{L}\p{M}\p{N}._+-]+@[^@]+$/u;

/**
 * The text as linkify-it is given it, the same length so that its positions hold in the message: the
 * letters beyond ASCII of a name before an @ read as "a" (one per UTF-16 unit), opening marks as spaces.
 */
function forLinkify(text: string) {
  return text
    .replace(WORD, (word) => (word.endsWith('@') ? word.replace(/[^\0-\x7f]/g, 'a') : word))
    .replace(OPENING_MARKS, (marks, before: string) => before + ' '.repeat(marks.length - before.length));
}

/** A message's text cut into plain parts and links, in order; the text itself is unchanged. */
export function withLinks(text: string): TextPart[] {
  const matches = linkify.match(forLinkify(text));
  if (!matches) return [{ text }];
  const parts: TextPart[] = [];
  let at = 0;
  for (const match of matches) {
    if (match.index > at) parts.push({ text: text.slice(at, match.index) });
    // The address as written, without the closing quotes and the marks that end a sentence after it,
    // which linkify-it takes in when more follow ("x.es/fiesta?!", «x.es/fiesta.», "x.es/fiesta!…").
    const raw = text.slice(match.index, match.lastIndex).replace(/[.,:;!?»›”’…]*$/u, '');
    // linkify-it's link is the address it read, after the scheme it adds ("http://", "mailto:") if any.
    let link: TextPart = { text: raw, href: match.url.slice(0, match.url.length - match.raw.length) + raw };
    if (link.href!.startsWith('mailto:')) {
      const mailbox = MAILBOX.exec(raw)?.[0];
      link = mailbox ? { text: mailbox, href: `mailto:${mailbox}` } : { text: raw };
    }
    if (link.text !== raw) parts.push({ text: raw.slice(0, raw.length - link.text.length) });
    parts.push(link);
    at = match.index + raw.length;
  }
  if (at < text.length) parts.push({ text: text.slice(at) });
  return parts;
}
