import { useEffect, useState } from 'react';
import { generatedAvatar } from '../lib/avatar';
import { thumbnail } from '../lib/photos';

/**
 * The `src` for someone's photo: the photo, or initials on a colour made from the name when there is
 * none or it no longer loads (a photo its owner has since removed is deleted from the server).
 */
export function usePhotoOrAvatar(name: string, image: string | null | undefined) {
  const [broken, setBroken] = useState<string | null>(null);
  // One that failed while the phone was offline (a card come up with no connection) is tried again when it is back.
  useEffect(() => {
    if (!broken) return;
    const retry = () => setBroken(null);
    window.addEventListener('online', retry);
    return () => window.removeEventListener('online', retry);
  }, [broken]);
  const photo = image && image !== broken ? image : null;
  return { src: photo ?? generatedAvatar(name), onError: () => photo && setBroken(photo) };
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
