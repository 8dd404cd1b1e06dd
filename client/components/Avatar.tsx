import { generatedAvatar } from '../lib/avatar';

/** A photo, or initials on a colour made from the name when there is none. */
export function Avatar({ name, image, size = 48, className = '' }: { name: string; image: string | null | undefined; size?: number; className?: string }) {
  return (
    <img
      className={`avatar ${className}`}
      src={image || generatedAvatar(name)}
      alt=""
      width={size}
      height={size}
      loading="lazy"
      decoding="async"
    />
  );
}
