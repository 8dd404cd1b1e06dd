/**
 * White space, zero-width characters and bidirectional controls: text made of nothing else shows
 * nothing, so a name, bio, message or report of only these is as blank as an empty one. Apart from
 * the zod schemas so that the client can ask it too without loading zod.
 */
const INVISIBLE = /[\s\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/gu;

export const hasVisibleText = (value: string) => value.replace(INVISIBLE, '').length > 0;
