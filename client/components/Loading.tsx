import { useT } from '../lib/i18n';

export function Loading() {
  const t = useT();
  return (
    <p className="center-text muted" role="status" aria-busy="true">
      {t('app.loading')}
    </p>
  );
}
