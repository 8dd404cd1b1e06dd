import { useT } from '../lib/i18n';

export function Loading() {
  const t = useT();
  return (
    <p className="center-text muted" role="status" aria-busy="true">
      {t('app.loading')}
    </p>
  );
}

/**
 * While a page's code or copy loads (the app's first open takes seconds on a slow phone): a spinner,
 * after a moment so that a quick load flashes nothing (styles.css), and its words for a screen reader.
 */
export function PageLoading() {
  const t = useT();
  return (
    <div className="page-loading" role="status">
      <span className="sr-only">{t('app.loading')}</span>
    </div>
  );
}
