import { MAX_PHOTOS } from '../../shared/constants';
import type { PhotoSize } from '../../shared/schemas/users';

/**
 * A photo of ours (`/media/<key>`) in a smaller copy the server makes: `thumb` for an avatar or a
 * tile, a few KB where the photo is a few hundred; `card` for a grid of cards. Any other address (a
 * preview not yet uploaded) as it is.
 */
export const photoOfSize = (image: string, size: PhotoSize) => (image.startsWith('/media/') ? `${image}?size=${size}` : image);
export const thumbnail = (image: string) => photoOfSize(image, 'thumb');

/** Added photos are appended and cut to the maximum. */
export function appendPhotos(current: readonly string[], added: readonly string[], max = MAX_PHOTOS): string[] {
  return [...current, ...added].slice(0, max);
}

/**
 * The photos changed here (`mine`) and on another device (`theirs`) since both were `base`: the order
 * made here, without what the other device removed (deleted on the server with its save), with what it
 * added after them (a save leaves out, deletes), cut to `max`.
 */
export function mergePhotos(base: readonly string[], mine: readonly string[], theirs: readonly string[], max = MAX_PHOTOS): string[] {
  const kept = mine.filter((url) => theirs.includes(url) || !base.includes(url));
  return appendPhotos(kept, theirs.filter((url) => !base.includes(url) && !mine.includes(url)), max);
}

export function removePhoto(current: readonly string[], index: number): string[] {
  return current.filter((_, i) => i !== index);
}

/** The photo at `index` first (the deck's card and the avatar show it), the others in their order. */
export function makePrimary(current: readonly string[], index: number): string[] {
  const chosen = current[index];
  if (chosen === undefined || index === 0) return [...current];
  return [chosen, ...current.filter((_, i) => i !== index)];
}

export interface FileSelection<F> {
  accepted: F[];
  notImages: number;
  overflow: number;
}

/** Only images, and only as many as there are free slots. The 10 MB limit is the server's. */
export function selectPhotoFiles<F extends { type: string }>(files: readonly F[], used: number, max = MAX_PHOTOS): FileSelection<F> {
  const images = files.filter((file) => file.type.startsWith('image/'));
  const free = Math.max(0, max - used);
  return {
    accepted: images.slice(0, free),
    notImages: files.length - images.length,
    overflow: Math.max(0, images.length - free),
  };
}
