import { useState } from 'react';
import { type Language, LANGUAGES } from '../../shared/constants';
import { useLanguage, useT } from '../lib/i18n';
import { languageSwitched } from '../stores/session';

/**
 * ES / EN. `compact` always shows the codes (the app's top bar); otherwise the names show, and the
 * codes only where the names would not fit beside the logo (a 320 px phone, styles.css). Each button
 * is named by its code and in full, "ES, Español": a screen reader says the language, and someone who
 * steers by voice can say what they see, whichever of the two shows. A change of language (not a tap
 * on the one in use) is kept on the account too, on any page (`languageSwitched`): the e-mails that
 * follow speak it, and so do the user's phones where none was chosen. A language whose copy does not
 * load (a new version went out and took the old copy's files with it, or no network) fails where the
 * page shows it: the error boundary reloads into the new version, the language already stored, or
 * says "No connection".
 */
export function LanguageSwitcher({
  className = '',
  compact = false,
}: {
  className?: string;
  compact?: boolean;
}) {
  const t = useT();
  const language = useLanguage((state) => state.language);
  const setLanguage = useLanguage((state) => state.setLanguage);
  const [, fail] = useState();
  return (
    <div className={`lang-switch ${compact ? 'compact' : ''} ${className}`} role="group" aria-label={t('language.label')}>
      {LANGUAGES.map((code: Language) => (
        <button
          key={code}
          type="button"
          lang={code}
          className={code === language ? 'is-active' : ''}
          aria-pressed={code === language}
          aria-label={`${code.toUpperCase()}, ${t(`language.${code}`)}`}
          onClick={() => {
            if (code === language) return;
            setLanguage(code).catch((error: unknown) =>
              fail(() => {
                throw error;
              }),
            );
            languageSwitched(code);
          }}
        >
          {!compact && <span className="lang-name">{t(`language.${code}`)}</span>}
          <span className="lang-code">{code.toUpperCase()}</span>
        </button>
      ))}
    </div>
  );
}
