/**
 * The account's calls: e-mail verification, password reset and change, sessions, deletion, export.
 * Beside `api.ts`, not in it, so that only the pages that make them load them; the requests go out
 * through `api.ts` all the same.
 */
import type { EmailVerified, PasswordResetLink } from '../../shared/schemas/account';
import { http } from './api';

export const accountApi = {
  verifyEmail: (token: string) => http.post<EmailVerified>('/api/auth/verify-email/', { token }),
  resendVerification: () => http.post<{ detail: string }>('/api/auth/verify-email/resend/'),
  requestPasswordReset: (email: string) => http.post<{ detail: string }>('/api/auth/password-reset/', { email }),
  checkPasswordReset: (token: string) => http.post<PasswordResetLink>('/api/auth/password-reset/check/', { token }),
  confirmPasswordReset: (token: string, password: string, password2: string) =>
    http.post<{ token: string }>('/api/auth/password-reset/confirm/', { token, password, password2 }),
  changePassword: (input: { current_password: string; password: string; password2: string }) =>
    http.post<{ token: string }>('/api/users/me/password/', input),
  logoutEverywhere: () => http.post<null>('/api/auth/logout-all/'),
  deleteAccount: (confirmation: { password: string } | { confirm: string }) => http.del<null>('/api/users/me/', confirmation),
  exportData: () => http.download('/api/users/me/export/'),
};
