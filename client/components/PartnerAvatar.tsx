import { useTiText } from '../lib/i18n';
import { usePresence } from '../stores/presence';
import { Avatar } from './Avatar';

/** A match's avatar, with a green dot while they are online (the server's `presence` events). */
export function PartnerAvatar({ userId, name, image, size }: { userId: number; name: string; image: string | null; size: number }) {
  const t = useTiText();
  const online = usePresence((state) => state.online.has(userId));
  return (
    <span className="partner-avatar">
      <Avatar name={name} image={image} size={size} />
      {online && <span className="online-dot" role="img" aria-label={t('presence.online', { name })} />}
    </span>
  );
}
