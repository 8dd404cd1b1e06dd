/** `hasVisibleText`: the one rule for "blank" that the server's schemas and the client's forms share. */
import { describe, expect, it } from 'vitest';
import { hasVisibleText } from '../../shared/visible-text';

describe('hasVisibleText', () => {
  it.each([
    ['a letter', 'a'],
    ['a decomposed é', 'e\u0301'],
    ['an emoji', '👍'],
    ['a keycap', '1\ufe0f\u20e3'],
    ['a flag', '🇪🇸'],
    ['Arabic between bidirectional controls', '\u2067مرحبا\u2069'],
    ['a Hangul syllable', '한'],
    ['a dot among zero-width spaces', '\u200b.\u200b'],
  ])('sees %s', (_name, text) => {
    expect(hasVisibleText(text)).toBe(true);
  });

  it.each([
    ['nothing', ''],
    ['spaces and a NEXT LINE', ' \u00a0\u3000\u0085'],
    ['zero-width characters', '\u200b\u200c\u200d\u2060\ufeff'],
    ['Hangul fillers', '\u3164\u115f\u1160\uffa0'],
    ['the braille blank', '\u2800'],
    ['a lone combining accent', '\u0301'],
    ['variation selectors and tags', '\ufe0f\u{e0020}\u{e007f}'],
    ['control characters', '\u001b\u0007'],
  ])('sees nothing in %s', (_name, text) => {
    expect(hasVisibleText(text)).toBe(false);
  });
});
