import { type Language, LANGUAGES } from '../../shared/constants';
import { useLanguage, useT } from '../lib/i18n';

/** `compact` shows ES / EN (the top bar of the app), with the full name for screen readers. */
export function LanguageSwitcher({ className = '', compact = false }: { className?: string; compact?: boolean }) {
  const t = useT();
  const language = useLanguage((state) => state.language);
  const setLanguage = useLanguage((state) => state.setLanguage);
  return (
    <div className={`lang-switch ${compact ? 'compact' : ''} ${className}`} role="group" aria-label={t('language.label')}>
      {LANGUAGES.map((code: Language) => (
        <button
          key={code}
          type="button"
          lang={code}
          className={code === language ? 'is-active' : ''}
          aria-pressed={code === language}
          aria-label={compact ? t(`language.${code}`) : undefined}
          onClick={() => setLanguage(code)}
        >
          {compact ? code.toUpperCase() : t(`language.${code}`)}
        </button>
      ))}
    </div>
  );
}
