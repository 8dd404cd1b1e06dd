/**
 * Open-loop pacing for load generators: item k of `total` is due at `start + k / rate` seconds, whatever
 * the server answers, and is sent as soon as the loop sees it due. Latency counted from the scheduled
 * time then includes the generator's own lateness, which stays under a timer tick at every rate.
 *
 * The off-by-one this replaces: `due = floor(elapsed × rate)` makes item k due only once item k+1's time
 * has come, so every latency measured from the schedule carried one whole interval of the generator's
 * own making — 20 ms at 50 msg/s, 5 ms at 200 msg/s, 1 ms at 1,000 msg/s (`bench/lean-client-rates.ts`).
 */

/** How many of `total` items are due `elapsedMs` after the start: item k is due at k / rate. */
export const dueCount = (elapsedMs: number, rate: number, total: number) =>
  elapsedMs < 0 ? 0 : Math.min(total, Math.floor((elapsedMs / 1000) * rate) + 1);

/** The old rule, kept for the comparison in bench/lean-client-rates.ts only. */
export const lateDueCount = (elapsedMs: number, rate: number, total: number) =>
  Math.min(total, Math.floor((elapsedMs / 1000) * rate));

/**
 * Calls `send(k, scheduledAt)` for k = 0 … total-1 at `rate` per second (scheduledAt on the
 * `performance.now()` clock), sleeping until the next item is due rather than polling.
 */
export function pace(
  rate: number,
  total: number,
  send: (index: number, scheduledAt: number) => void,
  due: typeof dueCount = dueCount,
): Promise<void> {
  const start = performance.now();
  const interval = 1000 / rate;
  let sent = 0;
  return new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      const count = due(now - start, rate, total);
      while (sent < count) {
        send(sent, start + sent * interval);
        sent += 1;
      }
      if (sent >= total) return resolve();
      // Until the next item's time (at least a tick: a spinning generator takes a core from the servers).
      const wait = start + (due === dueCount ? sent : sent + 1) * interval - performance.now();
      setTimeout(tick, Math.max(1, wait));
    };
    tick();
  });
}
