import { type Language, LANGUAGES } from '../../shared/constants';
import { useLanguage, useT } from '../lib/i18n';

export function LanguageSwitcher({ className = '' }: { className?: string }) {
  const t = useT();
  const language = useLanguage((state) => state.language);
  const setLanguage = useLanguage((state) => state.setLanguage);
  return (
    <div className={`lang-switch ${className}`} role="group" aria-label={t('language.label')}>
      {LANGUAGES.map((code: Language) => (
        <button
          key={code}
          type="button"
          lang={code}
          className={code === language ? 'is-active' : ''}
          aria-pressed={code === language}
          onClick={() => setLanguage(code)}
        >
          {t(`language.${code}`)}
        </button>
      ))}
    </div>
  );
}
