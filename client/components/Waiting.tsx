import type { MessageKey } from '../../shared/i18n/en';
import { useT } from '../lib/i18n';
import { useConnection } from '../lib/socket';
import { Loading } from './Loading';

/**
 * A page waiting for what only the server can tell: "Loading…", or, once the connection is lost,
 * `offline` (what will show when it is back), so that a phone with no network does not spin forever.
 */
export function Waiting({ offline }: { offline: MessageKey }) {
  const t = useT();
  const lost = useConnection((state) => state.lost);
  if (!lost) return <Loading />;
  return <Offline text={t(offline)} />;
}

/** What a page cannot show with no connection, and that it will once back. */
export function Offline({ text }: { text: string }) {
  return (
    <section className="page">
      <p className="center-text muted" role="status">
        {text}
      </p>
    </section>
  );
}
