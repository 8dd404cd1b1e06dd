import { Link } from 'wouter';
import { LanguageSwitcher } from '../components/LanguageSwitcher';
import { useT } from '../lib/i18n';
import { usePageTitle } from '../lib/page-title';

/**
 * A page that is not there. On its own it is the page's main landmark, with the language switch the
 * other public pages have (someone sent here in a language they do not read can change it); inside
 * the signed-in app (`inApp`) the app's shell already has one of each, so it is a section of it.
 */
export function NotFound({ inApp = false }: { inApp?: boolean }) {
  const t = useT();
  usePageTitle(inApp ? null : t('notFound.title'));
  const Landmark = inApp ? 'section' : 'main';
  return (
    <Landmark className="center-page">
      {!inApp && <LanguageSwitcher />}
      <h1>{t('notFound.title')}</h1>
      <Link href="/" className="btn btn-primary">
        {t('notFound.link')}
      </Link>
    </Landmark>
  );
}
