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
 * A quote, a guillemet or a Spanish ¿¡ opening right before an e-mail address: linkify-it finds an
 * address only after a space or a bracket, so these are read as spaces (one for one, the positions kept).
 */
const OPENING_MARKS = /[«‹“‘„'¿¡](?=[\w.+-]+@)/gu;

/** A message's text cut into plain parts and links, in order; the text itself is unchanged. */
export function withLinks(text: string): TextPart[] {
  const matches = linkify.match(text.replace(OPENING_MARKS, ' '));
  if (!matches) return [{ text }];
  const parts: TextPart[] = [];
  let at = 0;
  for (const match of matches) {
    if (match.index > at) parts.push({ text: text.slice(at, match.index) });
    // A closing quote or an ellipsis after it ends the address (linkify-it took them in): «x.es/fiesta»…
    const cut = /[»›”’…]*$/u.exec(match.raw)![0].length;
    parts.push({ text: match.raw.slice(0, match.raw.length - cut), href: match.url.slice(0, match.url.length - cut) });
    at = match.lastIndex - cut;
  }
  if (at < text.length) parts.push({ text: text.slice(at) });
  return parts;
}
