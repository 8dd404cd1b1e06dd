/**
 * What shows nothing on its own: white space and control characters, format characters (zero-width,
 * bidirectional controls, tags), the code points Unicode says to ignore when they cannot be shown
 * (variation selectors, the Hangul fillers), combining marks with nothing to combine with, and the
 * braille blank. Text made of nothing else is as blank as an empty one: a name, bio, message or report
 * of only these is refused. Apart from the zod schemas so that the client can ask it too without
 * loading zod.
 */
const INVISIBLE = /[\p{White_Space}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{M}\u2800]/gu;

export const hasVisibleText = (value: string) => value.replace(INVISIBLE, '').length > 0;
