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
