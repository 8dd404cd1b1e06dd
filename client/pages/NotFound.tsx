import { Link } from 'wouter';
import { useT } from '../lib/i18n';
import { usePageTitle } from '../lib/page-title';

/**
 * A page that is not there. On its own it is the page's main landmark; inside the signed-in app
 * (`inApp`) the app's shell already has one, so it is a section of it.
 */
export function NotFound({ inApp = false }: { inApp?: boolean }) {
  const t = useT();
  usePageTitle(inApp ? null : t('notFound.title'));
  const Landmark = inApp ? 'section' : 'main';
  return (
    <Landmark className="center-page">
      <h1>{t('notFound.title')}</h1>
      <Link href="/" className="btn btn-primary">
        {t('notFound.link')}
      </Link>
    </Landmark>
  );
}
