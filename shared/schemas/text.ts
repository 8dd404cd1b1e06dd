import { hasVisibleText } from '../visible-text';
import { message, z } from './zod';

/** A required text field: trimmed, 1 to `max` characters, and something in it that shows. */
export const visibleText = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    // An empty string already failed `min` with the same words.
    .refine((value) => value.length === 0 || hasVisibleText(value), message('blank'));
