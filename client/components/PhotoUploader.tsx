import { type ChangeEvent, useEffect, useRef, useState } from 'react';
import { toast } from '../lib/toast';
import { MAX_PHOTOS, PHOTO_GRID_COLUMNS } from '../../shared/constants';
import { api } from '../lib/api-app';
import { mayPass } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { useT } from '../lib/i18n';
import { appendPhotos, makePrimary, removePhoto, selectPhotoFiles, thumbnail } from '../lib/photos';
import { StarIcon } from './AppIcons';
import { CloseIcon } from './Icons';

interface Upload {
  key: number;
  file: File;
  preview: string;
  progress: number;
  /** Not sent (no answer, the server down): the tile offers to send the same file again. */
  failed?: boolean;
  /** Stops its sending: the photo taken out while on its way up (the wrong one, a slow network). */
  stop?: () => void;
}

interface Props {
  photos: string[];
  onChange: (update: (photos: string[]) => string[]) => void;
  /** Told whether photos are on their way up: a save meanwhile would go without them. */
  onUploading?: (uploading: boolean) => void;
  /** The id of the line that says what is wrong with the photos (a refused save), while it shows. */
  errorId?: string;
}

let uploadKey = 0;

/**
 * Up to MAX_PHOTOS photos in a 3-column grid; each file is uploaded at once, with its progress shown.
 * The first is the primary one (the deck's card); the star on any other puts it first.
 */
export function PhotoUploader({ photos, onChange, onUploading, errorId }: Props) {
  const t = useT();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const used = photos.length + uploads.length;
  const uploading = uploads.some((upload) => !upload.failed);
  useEffect(() => {
    onUploading?.(uploading);
  }, [onUploading, uploading]);
  /**
   * The photos as the next upload to land will find them: as drawn, with those landed since. Another
   * device's save merged in meanwhile can have filled the grid.
   */
  const shown = useRef(photos);
  shown.current = photos;
  const grid = useRef<HTMLUListElement>(null);
  // A star or a Remove used: the button goes (the star of the photo made primary) or moves with its
  // photo, which drops the focus to <body>. It goes on from the photo at `index` once the grid is
  // redrawn (its Remove: the photo made primary, or the one after the removed one), else Add photo.
  const refocus = (index: number) =>
    requestAnimationFrame(() => (grid.current?.querySelectorAll<HTMLElement>('.photo-remove')[index] ?? grid.current?.querySelector('input'))?.focus());

  const discard = ({ key, preview }: Upload) => {
    URL.revokeObjectURL(preview);
    setUploads((current) => current.filter((upload) => upload.key !== key));
  };

  /**
   * Sends the tile's file; its photo joins once `after` has settled. Refused (not an image, too large)
   * the tile goes; not sent, it stays with Retry.
   */
  function send(upload: Upload, after: Promise<unknown> = Promise.resolve()) {
    const update = (change: Partial<Upload>) => setUploads((current) => current.map((other) => (other.key === upload.key ? { ...other, ...change } : other)));
    const stopped = new AbortController();
    update({ failed: false, progress: 0, stop: () => stopped.abort() });
    const sent = api.upload(upload.file, (progress) => update({ progress }), stopped.signal);
    return after
      .then(() => sent)
      .then(({ url }) => {
        if (shown.current.length < MAX_PHOTOS) {
          shown.current = appendPhotos(shown.current, [url]);
          onChange((current) => appendPhotos(current, [url]));
        } else toast.error(t('profile.tooMany', { max: MAX_PHOTOS }));
        discard(upload);
      })
      .catch((error: unknown) => {
        // Taken out: its tile is gone already, and nothing went wrong.
        if (stopped.signal.aborted) return;
        toast.error(`${t('profile.uploadFailed')} ${errorMessage(error, t)}`);
        if (mayPass(error)) update({ failed: true });
        else discard(upload);
      });
  }

  function onFiles(event: ChangeEvent<HTMLInputElement>) {
    const files = Array.from(event.target.files ?? []);
    event.target.value = '';
    const { accepted, notImages, overflow } = selectPhotoFiles(files, used);
    if (notImages) toast.error(t('profile.onlyImages'));
    if (overflow) toast.error(t('profile.tooMany', { max: MAX_PHOTOS }));
    // All go up at once, and join the photos in the order they were picked (the first picked is the
    // primary one), whichever upload finishes first: each waits for its turn after the one before.
    let turn: Promise<unknown> = Promise.resolve();
    for (const file of accepted) {
      const upload = { key: uploadKey++, file, preview: URL.createObjectURL(file), progress: 0 };
      setUploads((current) => [...current, upload]);
      turn = send(upload, turn);
    }
  }

  return (
    <div className="uploader">
      <ul ref={grid} className="photo-grid" data-testid="photo-grid" style={{ gridTemplateColumns: `repeat(${PHOTO_GRID_COLUMNS}, minmax(0, 1fr))` }}>
        {photos.map((url, index) => (
          <li key={url} className="photo-slot">
            <img src={thumbnail(url)} alt="" />
            {index === 0 ? (
              <span className="photo-primary">{t('profile.primary')}</span>
            ) : (
              <button
                type="button"
                className="photo-action photo-make-primary"
                aria-label={t('profile.makePrimary', { n: index + 1 })}
                title={t('profile.makePrimary', { n: index + 1 })}
                onClick={() => {
                  onChange((current) => makePrimary(current, index));
                  refocus(0);
                }}
              >
                <StarIcon />
              </button>
            )}
            <button
              type="button"
              className="photo-action photo-remove"
              aria-label={t('profile.removePhoto', { n: index + 1 })}
              onClick={() => {
                onChange((current) => removePhoto(current, index));
                refocus(index);
              }}
            >
              <CloseIcon />
            </button>
          </li>
        ))}
        {uploads.map((upload, index) => (
          <li key={`u${upload.key}`} className="photo-slot is-uploading">
            <img src={upload.preview} alt="" />
            {upload.failed ? (
              <button type="button" className="photo-progress" onClick={() => send(upload)}>
                {t('app.retry')}
              </button>
            ) : (
              <span className="photo-progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(upload.progress * 100)}>
                {t('profile.uploading', { percent: Math.round(upload.progress * 100) })}
              </span>
            )}
            <button
              type="button"
              className="photo-action photo-remove"
              aria-label={t('profile.removePhoto', { n: photos.length + index + 1 })}
              onClick={() => {
                upload.stop?.();
                discard(upload);
                refocus(photos.length + index);
              }}
            >
              <CloseIcon />
            </button>
          </li>
        ))}
        {used < MAX_PHOTOS && (
          <li className="photo-slot photo-add">
            <label>
              <span aria-hidden="true">+</span>
              <span className="sr-only">{t('profile.addPhoto')}</span>
              <input type="file" accept="image/*" multiple className="sr-only" onChange={onFiles} aria-invalid={Boolean(errorId)} aria-describedby={errorId} data-testid="photo-input" />
            </label>
          </li>
        )}
      </ul>
      <p className="help">{t('profile.photosHelp')}</p>
    </div>
  );
}
