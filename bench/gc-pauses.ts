import { constants, PerformanceObserver } from 'node:perf_hooks';

/** A garbage collection worth a look: every full (mark-compact) one, and any other pause of MIN_PAUSE_MS or more. */
export interface GcPause {
  /** When it began, in ms since the epoch: comparable across the run's processes. */
  at: number;
  full: boolean;
  ms: number;
}

export const MIN_PAUSE_MS = 5;

/**
 * Watches this process's garbage collections. `take()` answers those since its last call. A handful a
 * second even under load (a scavenge every ~60 ms at 8,000 msg/s), so it is always on.
 */
export function watchGcPauses() {
  let pauses: GcPause[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } };
      const full = detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
      if (full || entry.duration >= MIN_PAUSE_MS) pauses.push({ at: performance.timeOrigin + entry.startTime, full, ms: entry.duration });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    take(): GcPause[] {
      const taken = pauses;
      pauses = [];
      return taken;
    },
  };
}
