import { Link } from 'wouter';
import { PRIVACY_EMAIL } from '../../shared/i18n/contact';
import { privacyMessages } from '../lib/messages-privacy';
import { AuthLayout } from '../components/AuthLayout';
import { useMessages, useT } from '../lib/i18n';

const SECTIONS = ['collection', 'sharing', 'security', 'rights', 'changes', 'contact'] as const;

export function Privacy() {
  useMessages(privacyMessages);
  const t = useT();
  return (
    <AuthLayout title={t('privacy.title')}>
      <div className="prose">
        <p className="muted">{t('privacy.updated')}</p>
        <p>{t('privacy.intro')}</p>
        <nav aria-labelledby="toc-title" className="toc">
          <h2 id="toc-title">{t('privacy.toc')}</h2>
          <ol>
            {SECTIONS.map((id) => (
              <li key={id}>
                <a href={`#${id}`}>{t(`privacy.${id}.title`)}</a>
              </li>
            ))}
          </ol>
        </nav>
        {SECTIONS.map((id) => (
          <section key={id} id={id}>
            <h2>{t(`privacy.${id}.title`)}</h2>
            {id === 'contact' ? (
              <p>
                {t('privacy.contact.text', { email: '\u0000' })
                  .split('\u0000')
                  .flatMap((part, index) => (index === 0 ? [part] : [<a key="mail" href={`mailto:${PRIVACY_EMAIL}`}>{PRIVACY_EMAIL}</a>, part]))}
              </p>
            ) : (
              <p>{t(`privacy.${id}.text`)}</p>
            )}
          </section>
        ))}
        <p>
          <Link href="/">{t('privacy.backHome')}</Link>
        </p>
      </div>
    </AuthLayout>
  );
}
