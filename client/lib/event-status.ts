import { useEffect, useState } from 'react';
import { EVENT_STATUSES, type EventStatus, eventStatusAt, nextStatusChangeAt } from '../../shared/event-status';
import type { PublicEvent } from '../../shared/schemas/events';
import { useServerAhead } from './server-clock';

/** The longest wait setTimeout keeps (about 24.8 days); a later moment is waited for in steps. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * Where an event is in its life now, not when it was read: a screen left open shows the event open at
 * its start and over at its end, rendered again at each of those moments, by the server's clock as
 * last measured (`server-clock.ts`), not the phone's. The server's word stands where it is further on
 * (the event was ended early). Rendered again at the start itself too, after check-in has opened:
 * from then on the event can no longer be deleted nor its start moved (the host screen, its edit).
 */
export function useEventStatus(
  event: Pick<PublicEvent, 'starts_at' | 'ends_at' | 'status'> | null | undefined,
): EventStatus | undefined {
  const serverAhead = useServerAhead();
  const [woken, setWoken] = useState(0);
  const starts = event ? Date.parse(event.starts_at) : Number.NaN;
  const ends = event ? Date.parse(event.ends_at) : Number.NaN;
  useEffect(() => {
    const now = Date.now() + serverAhead;
    let next = Number.isFinite(starts) ? nextStatusChangeAt(starts, ends, now) : null;
    if (starts > now) next = Math.min(starts, next ?? starts);
    if (next === null) return;
    const timer = setTimeout(() => setWoken((count) => count + 1), Math.min(Math.max(next - now, 0) + 50, MAX_TIMEOUT_MS));
    return () => clearTimeout(timer);
  }, [starts, ends, serverAhead, woken]);
  if (!event) return undefined;
  const byClock = eventStatusAt(starts, ends, Date.now() + serverAhead);
  return EVENT_STATUSES.indexOf(event.status) > EVENT_STATUSES.indexOf(byClock) ? event.status : byClock;
}
