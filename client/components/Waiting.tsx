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

/**
 * What a page cannot show with no connection, and that it will once back; with `onRetry`, a button to
 * ask again now (the socket may have stayed up while the server failed to answer).
 */
export function Offline({ text, onRetry }: { text: string; onRetry?: () => void }) {
  return (
    <section className="page">
      <p className="center-text muted" role="status">
        {text}
      </p>
      {onRetry && <TryAgain onRetry={onRetry} />}
    </section>
  );
}

/** Asks the server again now, under a notice that something could not be loaded. */
export function TryAgain({ onRetry }: { onRetry: () => void }) {
  const t = useT();
  return (
    <button type="button" className="btn btn-ghost try-again" onClick={onRetry}>
      {t('app.retry')}
    </button>
  );
}
