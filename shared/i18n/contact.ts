/** Where privacy questions go. */
export const PRIVACY_EMAIL = 'privacy@eventmatch.app';
