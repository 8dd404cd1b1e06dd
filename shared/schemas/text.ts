import { message, z } from './zod';

/**
 * White space, zero-width characters and bidirectional controls: text made of nothing else shows
 * nothing, so a name, bio, message or report of only these is as blank as an empty one.
 */
const INVISIBLE = /[\s\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/gu;

export const hasVisibleText = (value: string) => value.replace(INVISIBLE, '').length > 0;

/** A required text field: trimmed, 1 to `max` characters, and something in it that shows. */
export const visibleText = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    // An empty string already failed `min` with the same words.
    .refine((value) => value.length === 0 || hasVisibleText(value), message('blank'));
