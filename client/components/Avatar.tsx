import { useEffect, useState } from 'react';
import { generatedAvatar } from '../lib/avatar';
import { thumbnail } from '../lib/photos';

/**
 * The photos among those shown that did not load: left out, and tried again when the phone is back
 * online (one that failed offline loads then; one its owner has since removed, deleted from the
 * server, fails again).
 */
export function useBrokenPhotos() {
  const [broken, setBroken] = useState<readonly string[]>([]);
  useEffect(() => {
    if (!broken.length) return;
    const retry = () => setBroken([]);
    window.addEventListener('online', retry);
    return () => window.removeEventListener('online', retry);
  }, [broken]);
  return { broken, broke: (url: string) => setBroken((current) => (current.includes(url) ? current : [...current, url])) };
}

/**
 * The `src` for someone's photo: the photo, or initials on a colour made from the name when there is
 * none or it no longer loads (`useBrokenPhotos`).
 */
export function usePhotoOrAvatar(name: string, image: string | null | undefined) {
  const { broken, broke } = useBrokenPhotos();
  const photo = image && !broken.includes(image) ? image : null;
  return { src: photo ?? generatedAvatar(name), onError: () => photo && broke(photo) };
}

/** A photo, or initials on a colour made from the name when there is none; the photo's thumbnail. */
export function Avatar({ name, image, size = 48, className = '' }: { name: string; image: string | null | undefined; size?: number; className?: string }) {
  const { src, onError } = usePhotoOrAvatar(name, image && thumbnail(image));
  return (
    <img
      className={`avatar ${className}`}
      src={src}
      onError={onError}
      alt=""
      width={size}
      height={size}
      loading="lazy"
      decoding="async"
    />
  );
}
