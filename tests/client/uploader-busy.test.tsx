// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** Each upload waits here until the test answers it (or fails it); the files sent, in order. */
const answers = vi.hoisted(() => [] as Array<(result: { url: string }) => void>);
const failures = vi.hoisted(() => [] as Array<(error: unknown) => void>);
const sentFiles = vi.hoisted(() => [] as File[]);
vi.mock('../../client/lib/api-app', () => ({
  api: {
    upload: (file: File) =>
      new Promise<{ url: string }>((resolve, reject) => {
        sentFiles.push(file);
        answers.push(resolve);
        failures.push(reject);
      }),
  },
}));

const { PhotoUploader } = await import('../../client/components/PhotoUploader');
const { initLanguage } = await import('../../client/lib/i18n');
const { NetworkError, ValidationError } = await import('../../client/lib/api');
const { useToasts } = await import('../../client/lib/toast');
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
    failures.length = 0;
    sentFiles.length = 0;
    useToasts.setState({ toasts: [] });
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

  it('keeps a photo that could not be sent on its tile, and sends the same file again on Retry', async () => {
    let photos: string[] = [];
    const uploading = vi.fn();
    render(<PhotoUploader photos={[]} onChange={(update) => (photos = update(photos))} onUploading={uploading} />);
    const picked = new File(['x'], 'me.png', { type: 'image/png' });
    fireEvent.change(screen.getByTestId('photo-input'), { target: { files: [picked] } });
    await act(async () => failures[0]!(new NetworkError(0, 'Network error')));
    // The save is not held back by it: it is not on its way up.
    expect(uploading).toHaveBeenLastCalledWith(false);
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(uploading).toHaveBeenLastCalledWith(true);
    expect(sentFiles).toEqual([picked, picked]);
    await act(async () => answers[1]!({ url: '/media/me.webp' }));
    expect(photos).toEqual(['/media/me.webp']);
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
  });

  it('offers no Retry for a file the server refused, and lets a failed one be removed', async () => {
    render(<PhotoUploader photos={[]} onChange={() => {}} />);
    const png = (name: string) => new File(['x'], name, { type: 'image/png' });
    fireEvent.change(screen.getByTestId('photo-input'), { target: { files: [png('a.png'), png('b.png')] } });
    await act(async () => failures[0]!(new ValidationError({ file: ['Upload a valid image.'] })));
    await act(async () => failures[1]!(new NetworkError(0, 'Network error')));
    expect(screen.getAllByRole('button', { name: 'Try again' })).toHaveLength(1);
    fireEvent.click(screen.getByRole('button', { name: 'Remove photo 1' }));
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    expect(screen.getByTestId('photo-grid').querySelectorAll('.is-uploading')).toHaveLength(0);
  });

  it('says so when a photo lands on a grid that another device’s save filled meanwhile', async () => {
    const urls = (n: number) => Array.from({ length: n }, (_, i) => `/media/p${i + 1}.webp`);
    let photos = urls(5);
    const onChange = (update: (current: string[]) => string[]) => (photos = update(photos));
    const { rerender } = render(<PhotoUploader photos={photos} onChange={onChange} />);
    fireEvent.change(screen.getByTestId('photo-input'), { target: { files: [new File(['x'], 'me.png', { type: 'image/png' })] } });
    // The other device's sixth photo comes into the form (`rebase`) while this one goes up.
    photos = urls(6);
    rerender(<PhotoUploader photos={photos} onChange={onChange} />);
    await act(async () => answers[0]!({ url: '/media/me.webp' }));
    expect(photos).toEqual(urls(6));
    expect(useToasts.getState().toasts.map((item) => item.message)).toContain('You can upload up to 6 photos.');
    expect(screen.getByTestId('photo-grid').querySelectorAll('.is-uploading')).toHaveLength(0);
  });
});
