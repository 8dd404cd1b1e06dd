/**
 * A text's length as the server's limits count it (zod counts code points): an emoji or another
 * character beyond the first 65,536 is one, where a string's `length` and a field's `maxLength`, in
 * UTF-16 units, count it as two.
 */
export const textLength = (text: string) => text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '.').length;

/**
 * The `maxLength` of a field holding `text` that lets it reach `max` characters as the server counts
 * them: the browser counts units, so one more for each character of it that takes two. Never more than
 * the server takes; only a two-unit character typed or pasted into the last unit of room is refused
 * until the attribute catches up with it.
 */
export const maxUnits = (text: string, max: number) => max + text.length - textLength(text);

/**
 * Before a paste lands in a field whose maxLength is `maxUnits` of what it holds (its `onPaste`): the
 * browser cuts a paste at maxLength, in UTF-16 units, so the field is given room for as many of the
 * pasted characters as fit, as the server counts them (an emoji one), and no more; the next render sets
 * the attribute to the same. Whether the paste is cut.
 */
export function fitPaste(event: {
  currentTarget: { value: string; selectionStart: number | null; selectionEnd: number | null; maxLength: number };
  clipboardData: { getData(format: string): string };
}) {
  const field = event.currentTarget;
  const { value } = field;
  const kept = value.slice(0, field.selectionStart!) + value.slice(field.selectionEnd!);
  // The browser turns a pasted CRLF into one character.
  const pasted = [...event.clipboardData.getData('text').replace(/\r\n?/g, '\n')];
  // The limit in characters, as maxLength holds it, and how many of them fit in place of the selection.
  const max = field.maxLength - value.length + textLength(value);
  const room = max - textLength(kept);
  // As the next render sets it, for what the field then holds: React, finding the same, leaves it.
  if (pasted.length) field.maxLength = maxUnits(kept + pasted.slice(0, room > 0 ? room : 0).join(''), max);
  return pasted.length > room;
}
