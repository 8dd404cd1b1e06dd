import { create } from 'zustand';

/**
 * The server's clock less this device's (ms), from the last answer that said the server's time; 0 until
 * one has. A phone whose clock runs ahead or behind still shows an event open, over or lapsed when the
 * server has it so.
 */
export const useServerAhead = create(() => 0);

/** Now by the server's clock, as best known. */
export const serverNow = () => Date.now() + useServerAhead.getState();

/** The server said its time was `serverAt` answering a request sent at `sentAt` (this clock): taken as halfway through the round trip. */
export function heardServerTime(serverAt: number, sentAt: number) {
  const ahead = Math.round(serverAt - (sentAt + Date.now()) / 2);
  if (Number.isFinite(ahead)) useServerAhead.setState(ahead, true);
}
