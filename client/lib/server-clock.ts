import { create } from 'zustand';

/**
 * One answer that said the server's time: the offset it gave (`ahead`), its round trip (`trip`), and
 * when it came (`at`), all in ms by this device's clock. The server read its time somewhere within the
 * trip, so the true offset lies within `trip / 2` of `ahead`.
 */
interface Sample {
  ahead: number;
  trip: number;
  at: number;
}

/** How many recent answers the offset is chosen from. */
const SAMPLES = 8;
/** An answer older than this gives way to newer ones: both clocks drift, and either may be set. */
const SAMPLE_MAX_AGE_MS = 10 * 60_000;
/**
 * Two answers whose offsets differ by more than their half-trips (and this, for drift and rounding)
 * cannot both be right: a clock was set between them, and the older one goes at once.
 */
const AGREEMENT_MS = 1000;

/**
 * The server's clock less this device's (ms), from the answer with the shortest round trip among the
 * recent ones (as NTP chooses): a slow answer on a party's crowded Wi-Fi, whose time may be off by half
 * its trip, does not move it. 0 until an answer has said the server's time. A phone whose clock runs
 * ahead or behind still shows an event open, over or lapsed when the server has it so.
 */
export const useServerAhead = create(() => 0);

let samples: Sample[] = [];

/** Now by the server's clock, as best known. */
export const serverNow = () => Date.now() + useServerAhead.getState();

const recent = (sample: Sample, now: number) => sample.at <= now && now - sample.at <= SAMPLE_MAX_AGE_MS;
const agree = (one: Sample, other: Sample) => Math.abs(one.ahead - other.ahead) <= (one.trip + other.trip) / 2 + AGREEMENT_MS;

/** The server said its time was `serverAt` answering a request sent at `sentAt` (this clock): taken as halfway through the round trip. */
export function heardServerTime(serverAt: number, sentAt: number) {
  const now = Date.now();
  const sample = { ahead: Math.round(serverAt - (sentAt + now) / 2), trip: now - sentAt, at: now };
  // Sent "after" it came: this clock was set back meanwhile, and the trip says nothing.
  if (!Number.isFinite(sample.ahead) || sample.trip < 0) return;
  samples = [...samples.filter((kept) => recent(kept, now) && agree(kept, sample)).slice(1 - SAMPLES), sample];
  const best = samples.reduce((chosen, each) => (each.trip <= chosen.trip ? each : chosen));
  useServerAhead.setState(best.ahead, true);
}
