import { useLocation } from 'wouter';
import { ForgotPassword } from './ForgotPassword';
import { ResetPassword } from './ResetPassword';
import { VerifyEmail } from './VerifyEmail';

/**
 * The pages the account's e-mails and the login's "Forgot password?" lead to, in one chunk: the
 * landing page carries a single lazy route for the three.
 */
export function AccountLinks() {
  const [location] = useLocation();
  if (location.startsWith('/reset-password')) return <ResetPassword />;
  if (location.startsWith('/verify-email')) return <VerifyEmail />;
  return <ForgotPassword />;
}
