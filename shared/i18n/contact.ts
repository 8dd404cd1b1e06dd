/** Where privacy questions go (PRODUCT.md §9 leaves the address open). */
export const PRIVACY_EMAIL = 'privacy@eventmatch.app';
