// @vitest-environment jsdom
import { cleanup, fireEvent, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Avatar } from '../../client/components/Avatar';
import { generatedAvatar } from '../../client/lib/avatar';

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

  it('shows the generated avatar when there is no photo', () => {
    const { container } = render(<Avatar name="Ana Gil" image={null} />);
    expect(container.querySelector('img')!.getAttribute('src')).toBe(generatedAvatar('Ana Gil'));
  });
});
