import { withTimeout } from '../lib/redis';
import type { RealtimeServer } from './types';

/**
 * Sends `packet` (an event and its arguments) to the other instances, and resolves once each has said
 * it did what the event asks (its `done`). Rejects when they could not even be counted (Redis away) or
 * one did not answer within `timeoutMs`.
 */
export function answeredByEveryInstance(io: RealtimeServer, packet: [event: string, ...args: unknown[]], timeoutMs: number): Promise<void> {
  const acknowledged = new Promise<void>((resolve, reject) => {
    const done = (error: Error | null) => (error ? reject(error) : resolve());
    // Through the adapter, whose promise says when it could not even count the instances (Redis
    // away): `io.serverSideEmit` would leave that rejection unhandled.
    const counted: unknown = io.of('/').adapter.serverSideEmit([...packet, done]);
    void Promise.resolve(counted).catch(reject);
  });
  return withTimeout(acknowledged, timeoutMs, packet[0]);
}
