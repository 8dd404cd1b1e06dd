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

/** A message's text cut into plain parts and links, in order; the text itself is unchanged. */
export function withLinks(text: string): TextPart[] {
  const matches = linkify.match(text);
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
