/**
 * One timer for every simulated attendee: a wheel of slots `SLOT_MS` wide, each a flat list of
 * (attendee, action) pairs packed in one number. Thousands of attendees each waiting a few seconds
 * cost one interval, not thousands of setTimeouts. Human pace needs no better than a slot's precision;
 * latencies are timed from the moment a request leaves, not from the slot.
 */
const SLOT_MS = 20;
const ACTIONS = 8;

export class Wheel {
  private readonly slots = new Map<number, number[]>();
  private timer: NodeJS.Timeout | null = null;
  private current = Math.floor(performance.now() / SLOT_MS);
  size = 0;

  constructor(private readonly run: (attendee: number, action: number) => void) {}

  /** Runs `action` (0–7) for `attendee` in `delayMs`. */
  schedule(attendee: number, action: number, delayMs: number) {
    const slot = Math.max(this.current + 1, Math.floor((performance.now() + delayMs) / SLOT_MS));
    let list = this.slots.get(slot);
    if (!list) this.slots.set(slot, (list = []));
    list.push(attendee * ACTIONS + action);
    this.size += 1;
  }

  start() {
    this.current = Math.floor(performance.now() / SLOT_MS);
    this.timer ??= setInterval(() => this.tick(), SLOT_MS);
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
    const now = Math.floor(performance.now() / SLOT_MS);
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
