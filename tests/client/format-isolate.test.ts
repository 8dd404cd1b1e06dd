/**
 * A name put into the app's own sentences keeps its direction to itself: a right-to-left override
 * left open in a name (U+202E) turned the rest of the sentence backwards, so that system text could
 * be made to read as something else.
 */
import { describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import { format } from '../../shared/i18n/format';

describe('a value put into a sentence', () => {
  it('is left exactly as it is when it sets no direction of its own, in any script', () => {
    expect(format(en['chat.ended'], { name: 'Ana' })).toBe('Your conversation with Ana has ended.');
    expect(format('{name} · {count}', { name: 'مريم', count: 3 })).toBe('مريم · 3');
  });

  it('is isolated, its own controls taken out, when it holds one: nothing it opens reaches the words after it', () => {
    const said = format(en['chat.ended'], { name: 'Eve\u202Edecnuonna' });
    expect(said).toBe('Your conversation with \u2068Evedecnuonna\u2069 has ended.');
    // A stray end of isolate in the name cannot close the isolate early either.
    expect(format('{name}!', { name: 'x\u2069\u202Ey' })).toBe('\u2068xy\u2069!');
    expect(format('{name}', { name: '\u2067مريم\u2069' })).toBe('\u2068مريم\u2069');
  });
});
