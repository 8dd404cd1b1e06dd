import { useEffect } from 'react';
import { useLocation } from 'wouter';
import { LANGUAGES, type Language } from '../../shared/constants';
import { showLanguage } from '../lib/i18n';
import { chosenLanguage } from '../lib/storage';
import { ForgotPassword } from './ForgotPassword';
import { ResetPassword } from './ResetPassword';
import { VerifyEmail } from './VerifyEmail';

/**
 * The pages the account's e-mails and the login's "Forgot password?" lead to, in one chunk: the
 * landing page carries a single lazy route for the three.
 */
export function AccountLinks() {
  const [location] = useLocation();
  useEffect(() => {
    // An e-mail's link names the language it is written in (`lang`): opened where no language was ever
    // chosen (a computer's mail client, another phone), the page follows the e-mail, not the default.
    // Shown, not stored as the device's choice: the account signed in here later is followed still.
    const language = new URLSearchParams(window.location.search).get('lang');
    if (!chosenLanguage() && (LANGUAGES as readonly string[]).includes(language ?? '')) showLanguage(language as Language).catch(() => undefined);
  }, []);
  if (location.startsWith('/reset-password')) return <ResetPassword />;
  if (location.startsWith('/verify-email')) return <VerifyEmail />;
  return <ForgotPassword />;
}
