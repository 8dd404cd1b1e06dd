import { hasVisibleText } from '../visible-text';
import { message, z } from './zod';

/** Line breaks, tabs and runs of spaces: one space in a one-line field. */
const oneLine = (value: string) => value.replace(/\s+/g, ' ');

/**
 * A required text field: trimmed, 1 to `max` characters, and something in it that shows. `oneLine`:
 * a name, shown on one line everywhere (a card, a list, an e-mail's greeting), its line breaks and
 * runs of spaces made one space.
 */
export const visibleText = (max: number, options: { oneLine?: boolean } = {}) => {
  const trimmed = z.string().trim();
  return (
    (options.oneLine ? trimmed.overwrite(oneLine) : trimmed)
      .min(1)
      .max(max)
      // An empty string already failed `min` with the same words.
      .refine((value) => value.length === 0 || hasVisibleText(value), message('blank'))
  );
};
