/**
 * One timer for every simulated attendee: a wheel of slots `slotMs` wide, each a flat list of
 * (attendee, action) pairs packed in one number. Thousands of attendees each waiting a few seconds
 * cost one interval, not thousands of setTimeouts. Human pace needs no better than a slot's precision;
 * latencies are timed from the moment a request leaves, not from the slot.
 *
 * Everything due in a slot leaves at once, which real phones do not do: the slot is narrow enough that
 * the bursts do not become the server's queue. With 20 ms slots a 2,000-attendee party sent its ~600
 * swipes a second in bursts of a dozen, and the medians it measured were twice what they were with 5 ms
 * slots; 5 ms costs ~200 idle wakeups a second (bench/README.md, the load tool's own CPU).
 */
const ACTIONS = 8;
const DEFAULT_SLOT_MS = 5;

export class Wheel {
  private readonly slots = new Map<number, number[]>();
  private timer: NodeJS.Timeout | null = null;
  /** The last slot run (or, before the first tick, the slot the wheel was made in). */
  private current: number;
  size = 0;

  constructor(
    private readonly run: (attendee: number, action: number) => void,
    private readonly slotMs = DEFAULT_SLOT_MS,
  ) {
    this.current = Math.floor(performance.now() / slotMs);
  }

  /** Runs `action` (0–7) for `attendee` in `delayMs`. */
  schedule(attendee: number, action: number, delayMs: number) {
    const slot = Math.max(this.current + 1, Math.floor((performance.now() + delayMs) / this.slotMs));
    let list = this.slots.get(slot);
    if (!list) this.slots.set(slot, (list = []));
    list.push(attendee * ACTIONS + action);
    this.size += 1;
  }

  /** Starts ticking; the first tick also runs whatever fell due before the start. */
  start() {
    this.timer ??= setInterval(() => this.tick(), this.slotMs);
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  clear() {
    this.slots.clear();
    this.size = 0;
  }

  private tick() {
    const now = Math.floor(performance.now() / this.slotMs);
    while (this.current < now) {
      this.current += 1;
      const list = this.slots.get(this.current);
      if (!list) continue;
      this.slots.delete(this.current);
      this.size -= list.length;
      for (const entry of list) this.run(Math.floor(entry / ACTIONS), entry % ACTIONS);
    }
  }
}
