import { withTimeout } from '../lib/redis';
import type { AttendanceMove, RealtimeServer } from './types';

/**
 * How long a check-in waits for the other instances to say they have moved the user's sockets. One that
 * cannot answer in time (Redis away, an instance stalled) moves them when it hears of it, or once
 * Redis is back (`EventLive.resettle`).
 */
const MOVE_ACK_TIMEOUT_MS = 1000;

/**
 * Tells the other instances of a user's move (`event:moved`: each moves its sockets of theirs, and
 * hears the room they joined), and resolves once each has said so. Rejects when they could not even be
 * counted (Redis away) or one did not answer in time.
 */
export function movedElsewhere(io: RealtimeServer, move: AttendanceMove): Promise<void> {
  const acknowledged = new Promise<void>((resolve, reject) => {
    const done = (error: Error | null) => (error ? reject(error) : resolve());
    // Through the adapter, whose promise says when it could not even count the instances (Redis
    // away): `io.serverSideEmit` would leave that rejection unhandled.
    const counted: unknown = io.of('/').adapter.serverSideEmit(['event:moved', move, done]);
    void Promise.resolve(counted).catch(reject);
  });
  return withTimeout(acknowledged, MOVE_ACK_TIMEOUT_MS, 'event:moved');
}
