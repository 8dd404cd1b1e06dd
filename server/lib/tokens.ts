import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe. Only its hash is stored. */
export const newToken = () => randomBytes(32).toString('base64url');

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A session token unused this long is dead (60 days, sliding with each use). */
export const TOKEN_IDLE_LIFETIME_MS = 60 * 24 * 60 * 60 * 1000;
