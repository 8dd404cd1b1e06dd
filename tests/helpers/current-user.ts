import type { CurrentUser } from '../../shared/schemas/users';

/** The signed-in user as `GET /api/users/me/` answers it, for client tests: Ana, complete, on the free plan. */
export const currentUser = (overrides: Partial<CurrentUser> = {}): CurrentUser => ({
  id: 1,
  email: 'ana@example.com',
  first_name: 'Ana',
  last_name: 'Ruiz',
  image: null,
  is_profile_completed: true,
  has_subscription: false,
  email_verified: true,
  has_password: true,
  is_moderator: false,
  language: 'es',
  ...overrides,
});
