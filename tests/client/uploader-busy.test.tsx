// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** Each upload waits here until the test answers it. */
const answers = vi.hoisted(() => [] as Array<(result: { url: string }) => void>);
vi.mock('../../client/lib/api-app', () => ({
  api: { upload: () => new Promise<{ url: string }>((resolve) => answers.push(resolve)) },
}));

const { PhotoUploader } = await import('../../client/components/PhotoUploader');
const { initLanguage } = await import('../../client/lib/i18n');
await import('../../client/lib/messages-app');

describe('<PhotoUploader> while photos go up', () => {
  beforeEach(async () => {
    localStorage.setItem('language_code', 'en');
    await initLanguage();
    URL.createObjectURL = () => 'blob:preview';
    URL.revokeObjectURL = () => {};
  });
  afterEach(() => {
    cleanup();
    localStorage.clear();
    answers.length = 0;
  });

  it('says it is uploading from the pick until the last upload is answered', async () => {
    const uploading = vi.fn();
    render(<PhotoUploader photos={[]} onChange={() => {}} onUploading={uploading} />);
    expect(uploading).toHaveBeenLastCalledWith(false);
    const png = (name: string) => new File(['x'], name, { type: 'image/png' });
    fireEvent.change(screen.getByTestId('photo-input'), { target: { files: [png('a.png'), png('b.png')] } });
    expect(uploading).toHaveBeenLastCalledWith(true);
    expect(answers).toHaveLength(2);
    await act(async () => answers[0]!({ url: '/media/a.webp' }));
    expect(uploading).toHaveBeenLastCalledWith(true);
    await act(async () => answers[1]!({ url: '/media/b.webp' }));
    expect(uploading).toHaveBeenLastCalledWith(false);
  });

  it('adds the photos in the order they were picked, whichever upload finishes first', async () => {
    let photos: string[] = [];
    render(<PhotoUploader photos={[]} onChange={(update) => (photos = update(photos))} />);
    const png = (name: string) => new File(['x'], name, { type: 'image/png' });
    fireEvent.change(screen.getByTestId('photo-input'), { target: { files: [png('a.png'), png('b.png'), png('c.png')] } });
    await act(async () => answers[2]!({ url: '/media/c.webp' }));
    await act(async () => answers[0]!({ url: '/media/a.webp' }));
    expect(photos).toEqual(['/media/a.webp']);
    await act(async () => answers[1]!({ url: '/media/b.webp' }));
    expect(photos).toEqual(['/media/a.webp', '/media/b.webp', '/media/c.webp']);
  });
});
