import { answeredByEveryInstance } from './every-instance';
import type { RealtimeServer } from './types';

/**
 * How long a revocation waits for the other instances to say they have dropped the token. One that
 * cannot answer in time (Redis away, an instance stalled) is left to the token's trust running out and
 * to the token-sweep job, as while Redis is away.
 */
const REVOCATION_ACK_TIMEOUT_MS = 1000;

/**
 * Tells the other instances that a token was revoked (`token:revoked`: each forgets it and drops its
 * sockets), and resolves once each has said so. Rejects when they could not even be counted (Redis
 * away) or one did not answer in time. Told and not waited for, a request the client sent on hearing
 * the revocation's answer could reach an instance that had not heard yet, and find the token still
 * trusted there. The server's own revocations and the admin command's alike.
 */
export function revokedElsewhere(io: RealtimeServer, tokenHash: string): Promise<void> {
  return answeredByEveryInstance(io, ['token:revoked', tokenHash], REVOCATION_ACK_TIMEOUT_MS);
}
