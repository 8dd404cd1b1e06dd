import { Link } from 'wouter';
import { useT } from '../lib/i18n';

export function NotFound() {
  const t = useT();
  return (
    <main className="center-page">
      <h1>{t('notFound.title')}</h1>
      <Link href="/" className="btn btn-primary">
        {t('notFound.link')}
      </Link>
    </main>
  );
}
