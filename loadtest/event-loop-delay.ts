import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * How late this process's event loop runs, in milliseconds: Node's monitor records the intervals
 * between the ticks of a timer of `resolutionMs`, so the delay is what exceeds that resolution.
 * Started at once; `reset` starts a new window, `stop` ends it.
 */
export function eventLoopDelay(resolutionMs: number) {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  const lateBy = (nanoseconds: number) => Math.max(0, nanoseconds / 1e6 - resolutionMs);
  histogram.enable();
  return {
    percentile: (percentile: number) => lateBy(histogram.percentile(percentile)),
    max: () => lateBy(histogram.max),
    reset: () => histogram.reset(),
    stop: () => histogram.disable(),
  };
}
