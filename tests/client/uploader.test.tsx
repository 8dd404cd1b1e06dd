// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_PHOTOS, PHOTO_GRID_COLUMNS } from '../../shared/constants';
import { PhotoUploader } from '../../client/components/PhotoUploader';
import { initLanguage } from '../../client/lib/i18n';
import '../../client/lib/messages-app';
import { appendPhotos, makePrimary, removePhoto, selectPhotoFiles } from '../../client/lib/photos';

const urls = (n: number) => Array.from({ length: n }, (_, i) => `/media/p${i + 1}.webp`);
const file = (type: string) => ({ type, name: 'x' });

describe('uploader limits', () => {
  it('appends and cuts to 6', () => {
    expect(MAX_PHOTOS).toBe(6);
    expect(appendPhotos(urls(4), ['a', 'b', 'c'])).toEqual([...urls(4), 'a', 'b']);
    expect(appendPhotos(urls(6), ['a'])).toEqual(urls(6));
  });

  it('accepts only images, and only as many as there are free slots', () => {
    const selection = selectPhotoFiles([file('image/png'), file('application/pdf'), file('image/jpeg'), file('image/gif')], 4);
    expect(selection.accepted.map((f) => f.type)).toEqual(['image/png', 'image/jpeg']);
    expect(selection.notImages).toBe(1);
    expect(selection.overflow).toBe(1);
    expect(selectPhotoFiles([file('image/png')], 6).accepted).toEqual([]);
  });

  it('removes the photo at an index', () => {
    expect(removePhoto(['a', 'b', 'c'], 1)).toEqual(['a', 'c']);
  });

  it('puts the photo at an index first, the others in their order', () => {
    expect(makePrimary(['a', 'b', 'c', 'd'], 2)).toEqual(['c', 'a', 'b', 'd']);
    expect(makePrimary(['a', 'b'], 0)).toEqual(['a', 'b']);
    expect(makePrimary(['a', 'b'], 5)).toEqual(['a', 'b']);
  });
});

describe('<PhotoUploader>', () => {
  beforeEach(async () => {
    localStorage.setItem('language_code', 'en');
    await initLanguage();
  });
  afterEach(() => {
    cleanup();
    localStorage.clear();
  });

  function Harness({ initial }: { initial: string[] }) {
    const [photos, setPhotos] = useState(initial);
    return <PhotoUploader photos={photos} onChange={(update) => setPhotos(update)} />;
  }

  it('lays slots out in 3 columns, marks the first as primary, and offers an add slot below 6', () => {
    render(<Harness initial={urls(5)} />);
    const grid = screen.getByTestId('photo-grid');
    expect(PHOTO_GRID_COLUMNS).toBe(3);
    expect(grid.style.gridTemplateColumns).toBe('repeat(3, minmax(0, 1fr))');
    expect(grid.querySelectorAll('img')).toHaveLength(5);
    expect(screen.getByText('Primary')).toBeTruthy();
    expect(screen.getByTestId('photo-input').getAttribute('accept')).toBe('image/*');
    expect(screen.getByText('PNG, JPG, GIF up to 10MB')).toBeTruthy();
  });

  it('has no add slot with 6 photos, and the × button removes one', () => {
    render(<Harness initial={urls(6)} />);
    expect(screen.queryByTestId('photo-input')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Remove photo 2' }));
    const images = [...screen.getByTestId('photo-grid').querySelectorAll('img')].map((img) => img.getAttribute('src'));
    // Tiles show the server's thumbnails.
    expect(images).toEqual(urls(6).filter((url) => url !== '/media/p2.webp').map((url) => `${url}?size=thumb`));
    expect(screen.getByTestId('photo-input')).toBeTruthy();
  });

  it('offers a star on every photo but the primary one, which puts that photo first', () => {
    render(<Harness initial={urls(4)} />);
    expect(screen.queryByRole('button', { name: 'Make photo 1 the primary one' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Make photo 3 the primary one' }));
    const images = [...screen.getByTestId('photo-grid').querySelectorAll('img')].map((img) => img.getAttribute('src'));
    expect(images).toEqual(['/media/p3.webp', '/media/p1.webp', '/media/p2.webp', '/media/p4.webp'].map((url) => `${url}?size=thumb`));
    // The badge stays on the first slot, now the chosen photo's.
    expect(screen.getByText('Primary').closest('li')!.querySelector('img')!.getAttribute('src')).toBe('/media/p3.webp?size=thumb');
    expect(screen.getAllByRole('button', { name: /the primary one$/ })).toHaveLength(3);
  });

  it('keeps the keyboard in the grid when a star or a × takes its button away: on the photo’s next control, or Add photo', async () => {
    render(<Harness initial={urls(3)} />);
    const use = (name: string) => {
      const button = screen.getByRole('button', { name });
      button.focus();
      fireEvent.click(button);
    };
    // The photo made primary keeps it, on its own ×, which now says it is the first.
    use('Make photo 3 the primary one');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Remove photo 1' })));
    expect(screen.getByText('Primary').closest('li')!.contains(document.activeElement)).toBe(true);
    // A photo removed: the one after it, in its place.
    use('Remove photo 2');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Remove photo 2' })));
    expect(document.activeElement!.closest('li')!.querySelector('img')!.getAttribute('src')).toBe('/media/p2.webp?size=thumb');
    // The last one removed: Add photo, after it.
    use('Remove photo 2');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('photo-input')));
  });
});
