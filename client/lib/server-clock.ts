import { useEffect, useReducer } from 'react';
import { create } from 'zustand';
import { readJson, writeJson } from './storage';

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
/** No answer takes this long (a request gives up after 15 s without one): a longer trip is a clock set meanwhile. */
const MAX_TRIP_MS = 60_000;

/**
 * Where the recent answers are kept, so that the first screen of the app's next opening is timed by
 * the server's clock before any answer has come. The device's, not an account's: sign-in and sign-out
 * clear it with the rest of storage, and the next answer writes it again.
 */
const STORAGE_KEY = 'server_clock';
/** A kept answer older than this is not used: the phone's clock may well have been set since. */
const KEPT_MAX_AGE_MS = 24 * 60 * 60_000;

/** What an answer could have said, heard no later than now and not so long ago that it is stale. */
function plausible({ ahead, trip, at }: Sample, now: number) {
  return [ahead, trip, at].every(Number.isFinite) && trip >= 0 && trip <= MAX_TRIP_MS && at <= now && now - at <= KEPT_MAX_AGE_MS;
}

/** The last opening's answers, those still plausible. */
function keptSamples(): Sample[] {
  const kept = readJson(STORAGE_KEY);
  const now = Date.now();
  return Array.isArray(kept) ? kept.filter((each: Sample | null) => plausible(each ?? ({} as Sample), now)).slice(-SAMPLES) : [];
}

// Private mode or a full storage: the next opening waits for an answer, as the first did.
const keep = (kept: Sample[]) => writeJson(STORAGE_KEY, kept);

/** The offset of the quickest answer, the newest of equals; 0 with none. */
const bestOf = (among: Sample[]) => among.reduce<Sample | null>((chosen, each) => (chosen && chosen.trip < each.trip ? chosen : each), null)?.ahead ?? 0;

// The last opening's until an answer comes: older than SAMPLE_MAX_AGE_MS, they go with the first.
let samples = keptSamples();

/**
 * The server's clock less this device's (ms), from the answer with the shortest round trip among the
 * recent ones (as NTP chooses): a slow answer on a party's crowded Wi-Fi, whose time may be off by half
 * its trip, does not move it. 0 until an answer has said the server's time, in this opening or the
 * last (kept). A phone whose clock runs ahead or behind still shows an event open, over or lapsed when
 * the server has it so.
 */
export const useServerAhead = create(() => bestOf(samples));

/** Now by the server's clock, as best known. */
export const serverNow = () => Date.now() + useServerAhead.getState();

/**
 * Renders the caller again when the offset known moves by a minute or so (the first answer of a session,
 * a clock set): what it says by `serverNow` ("Today", a time for today's) is said by the server's day,
 * not left at the phone's until something else renders it. Smaller moves do not render it again. And
 * at each midnight (by `serverNow`, in the phone's zone): a chat left open overnight says "Yesterday"
 * of the evening's messages, and Chats a date, though nothing else has come.
 */
export function useServerMinutes() {
  const minutes = useServerAhead((ahead) => Math.round(ahead / 60_000));
  const [days, renderAgain] = useReducer((day: number) => day + 1, 0);
  // Set again when the offset moves, or after it fired (early, it sets one for the same midnight); not
  // at every render of a chat.
  useEffect(() => {
    const now = new Date(serverNow());
    // A second past it: a timer that comes a little early does not render the day before again.
    const timer = setTimeout(renderAgain, new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1).getTime() - now.getTime() + 1000);
    return () => clearTimeout(timer);
  }, [minutes, days]);
  return minutes;
}

const recent = (sample: Sample, now: number) => sample.at <= now && now - sample.at <= SAMPLE_MAX_AGE_MS;
const agree = (one: Sample, other: Sample) => Math.abs(one.ahead - other.ahead) <= (one.trip + other.trip) / 2 + AGREEMENT_MS;

/** The server said its time was `serverAt` answering a request sent at `sentAt` (this clock): taken as halfway through the round trip. */
export function heardServerTime(serverAt: number, sentAt: number) {
  const now = Date.now();
  const sample = { ahead: Math.round(serverAt - (sentAt + now) / 2), trip: now - sentAt, at: now };
  // Sent "after" it came, or a minute before: this clock was set meanwhile, and the trip says nothing.
  if (!plausible(sample, now)) return;
  samples = [...samples.filter((kept) => recent(kept, now) && agree(kept, sample)).slice(1 - SAMPLES), sample];
  keep(samples);
  useServerAhead.setState(bestOf(samples), true);
}
