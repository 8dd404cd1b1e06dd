/**
 * Half of a surrogate pair on its own (JSON can carry `"\uD800"`): no character at all, which UTF-8
 * (and so the database) can only write as U+FFFD. Under the `u` flag, \p{Cs} matches only a lone half.
 */
export const hasLoneSurrogate = (text: string) => /\p{Cs}/u.test(text);
