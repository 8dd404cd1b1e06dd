import { answeredByEveryInstance } from './every-instance';
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
  return answeredByEveryInstance(io, ['event:moved', move], MOVE_ACK_TIMEOUT_MS);
}
