// @vitest-environment jsdom
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Avatar } from '../../client/components/Avatar';
import { generatedAvatar, initials } from '../../client/lib/avatar';

describe('<Avatar>', () => {
  afterEach(cleanup);

  it('shows the photo, and the generated avatar once the photo fails to load (its owner removed it)', () => {
    const { container, rerender } = render(<Avatar name="Ana Gil" image="/media/removed-photo-key-01.webp" />);
    const img = () => container.querySelector('img')!;
    // The server's thumbnail of it: an avatar needs a few KB, not the photo.
    expect(img().getAttribute('src')).toBe('/media/removed-photo-key-01.webp?size=thumb');

    fireEvent.error(img());
    expect(img().getAttribute('src')).toBe(generatedAvatar('Ana Gil'));

    // A new photo is tried again.
    rerender(<Avatar name="Ana Gil" image="/media/new-photo-key-0001.webp" />);
    expect(img().getAttribute('src')).toBe('/media/new-photo-key-0001.webp?size=thumb');
  });

  it('tries the photo again when the connection comes back (it failed to load offline)', () => {
    const { container } = render(<Avatar name="Ana Gil" image="/media/offline-photo-key-01.webp" />);
    const img = () => container.querySelector('img')!;
    fireEvent.error(img());
    expect(img().getAttribute('src')).toBe(generatedAvatar('Ana Gil'));

    act(() => void window.dispatchEvent(new Event('online')));
    expect(img().getAttribute('src')).toBe('/media/offline-photo-key-01.webp?size=thumb');
  });

  it('shows the generated avatar when there is no photo', () => {
    const { container } = render(<Avatar name="Ana Gil" image={null} />);
    expect(container.querySelector('img')!.getAttribute('src')).toBe(generatedAvatar('Ana Gil'));
  });
});

describe('the generated avatar', () => {
  it('takes whole letters for its initials, whatever else a name holds', () => {
    expect(initials('Ana Gil')).toBe('AG');
    expect(initials('ana')).toBe('AN');
    expect(initials('  Álvaro   de la Peña ')).toBe('ÁP');
    // Emoji and digits are not initials; a word that starts with one gives its letters.
    expect(initials('🎉 Dani 🕺🏽')).toBe('DA');
    expect(initials('Ana García 💃')).toBe('AG');
    expect(initials('a💃')).toBe('A');
    expect(initials('Ana 2')).toBe('AN');
    expect(initials('💃Lu')).toBe('LU');
    // A name of emoji alone shows its first, whole.
    expect(initials('🕺🏽🎉')).toBe('🕺');
    expect(initials('   ')).toBe('?');
  });

  it('makes an image for any name, emoji and all (half an emoji broke its URL, and with it every page)', () => {
    for (const name of ['🎉 Dani 🕺🏽', 'Ana García 💃', 'a💃', '💃', '👩‍👩‍👧 Fam', 'x\uD800', '\uDC00 y', '<b>&"\'']) {
      const url = generatedAvatar(name);
      expect(url).toMatch(/^data:image\/svg\+xml,/);
      expect(decodeURIComponent(url)).toContain('</svg>');
    }
  });
});
