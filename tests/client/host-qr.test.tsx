// @vitest-environment jsdom
/**
 * The host screen's door QR against the clock: the next code swaps in a little before the window
 * turns, and a code that has run out with no newer one come (the phone offline) is struck through and
 * said to let nobody in, on the screen and on the big screen, until a fresh one comes. A code whose
 * link only this computer can open says so, and so does the door of an organizer whose e-mail is not verified. Timers and Date are fake; the api and the socket are faked.
 */
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { QR_EARLY_SECONDS, QR_WINDOW_SECONDS } from '../../shared/constants';
import { enEvents } from '../../shared/i18n/en-events';
import type { EventQr } from '../../shared/schemas/events';
import { api } from '../helpers/host-fakes';
import { inEnglish, renderHostScreen } from '../helpers/host-screen';
import { comeBack } from '../helpers/page-visibility';
import { publicEvent } from '../helpers/public-event';
import { currentUser } from '../helpers/current-user';

vi.mock(import('../../client/lib/socket'), async (original) => ({
  ...(await original()),
  ...(await import('../helpers/host-fakes')).socketHearing(null),
}));
vi.mock('../../client/lib/api-app', () => import('../helpers/host-fakes'));

const { openHostScreen, useHost } = await import('../../client/stores/host');
const { useSession } = await import('../../client/stores/session');

const WINDOW = QR_WINDOW_SECONDS * 1000;
/** A window's turn, as the server counts them (from the epoch, a window at a time). */
const TURN = 29_000_000 * WINDOW;
/** How far the server's clock is ahead of this computer's (negative: behind). */
let serverAhead = 0;
/** The code the server hands out now, good until `expires` by its clock (and for that long from now). */
const qrUntil = (expires: number, origin = 'https://party.example.com'): EventQr => ({
  token: `t${expires}`,
  url: `${origin}/e/ABC234?t=t${expires}`,
  svg: '<svg/>',
  expires_at: new Date(expires).toISOString(),
  expires_in_ms: expires - (Date.now() + serverAhead),
});
/** The server's answers to each ask for the code in turn, made as it is asked; the last one again after. */
const serveQr = (...expiries: number[]) => {
  let asked = 0;
  api.eventQr.mockImplementation(async () => qrUntil(expiries[Math.min(asked++, expiries.length - 1)]!));
};

/** Lets the fake clock run `ms`, and whatever it wakes (the api's answers, React's renders) settle. */
const run = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

beforeAll(inEnglish);

let stop = () => {};
afterEach(() => {
  stop();
  stop = () => {};
  serverAhead = 0;
  cleanup();
  vi.useRealTimers();
  vi.resetAllMocks();
});

function answers(now: number) {
  vi.useFakeTimers({ now });
  const event = { ...publicEvent({ id: 7 }), is_organizer: true as const };
  api.myEvents.mockResolvedValue({ results: [event], next: null });
  api.eventStats.mockResolvedValue({ attendee_count: 12, checked_in_total: 12, likes: 0, matches: 0, conversations_started: 0, timeline: [] });
}

describe('the host screen’s QR', () => {
  it('swaps in the next code a little before the window turns, not after', async () => {
    answers(TURN - 30_000);
    serveQr(TURN + WINDOW, TURN + 2 * WINDOW);
    stop = openHostScreen(7);
    await run(0);
    expect(useHost.getState().qr?.expires_at).toBe(qrUntil(TURN + WINDOW).expires_at);
    // Not before the server hands the next one out…
    await run(30_000 - QR_EARLY_SECONDS * 1000);
    expect(api.eventQr).toHaveBeenCalledTimes(1);
    // …and on screen before the turn.
    await run(QR_EARLY_SECONDS * 1000 - 1);
    expect(api.eventQr).toHaveBeenCalledTimes(2);
    expect(useHost.getState().qr?.expires_at).toBe(qrUntil(TURN + 2 * WINDOW).expires_at);
  });

  it('is struck through and said to let nobody in once it runs out with no newer one, here and on the big screen', async () => {
    answers(TURN - 30_000);
    api.eventQr.mockResolvedValueOnce(qrUntil(TURN + WINDOW)).mockRejectedValue(new TypeError('Failed to fetch'));
    renderHostScreen();
    await run(0);
    const door = () => document.querySelector<HTMLElement>('.host-door')!;
    /** What the door says above its QR, and whether the QR is shown as dead. */
    const doorSays = (where: HTMLElement) => ({
      expired: within(where).queryByText(enEvents['host.qrExpired']) !== null,
      scan: within(where).queryByText(enEvents['host.scan']) !== null,
      struck: where.querySelector('.host-qr')!.classList.contains('host-qr-expired'),
    });
    const good = { expired: false, scan: true, struck: false };
    const dead = { expired: true, scan: false, struck: true };
    expect(doorSays(door())).toEqual(good);

    // The network gone: the code on screen is good through the next window, and not a moment longer.
    await run(30_000 + WINDOW - 1);
    expect(doorSays(door())).toEqual(good);
    await run(1);
    expect(doorSays(door())).toEqual(dead);
    fireEvent.click(screen.getByRole('button', { name: enEvents['host.present'] }));
    const big = screen.getByRole('dialog');
    expect(doorSays(big)).toEqual(dead);

    // Back online: the next try brings a fresh code, shown as good again on both.
    api.eventQr.mockResolvedValue(qrUntil(TURN + 3 * WINDOW));
    await run(5000);
    expect(doorSays(big)).toEqual(good);
    fireEvent.click(within(big).getByRole('button', { name: enEvents['host.presentClose'] }));
    expect(doorSays(door())).toEqual(good);
  });

  it('strikes the code through and asks for a fresh one at once when the computer wakes from a sleep it was not told of', async () => {
    answers(TURN - 30_000);
    serveQr(TURN + WINDOW);
    renderHostScreen();
    await run(0);
    expect(api.eventQr).toHaveBeenCalledTimes(1);
    // The lid closed for an hour, the page never hidden: the clock went on, the timers stood still.
    api.eventQr.mockRejectedValue(new TypeError('Failed to fetch'));
    vi.setSystemTime(Date.now() + 60 * 60_000);
    // Woken, the Wi-Fi not back yet: the dead code is said to be dead within seconds, not a window on.
    await run(5000);
    expect(useHost.getState().qrExpired).toBe(true);
    expect(document.querySelector('.host-qr')!.classList.contains('host-qr-expired')).toBe(true);
    // And the fresh one comes as soon as the network answers.
    api.eventQr.mockImplementation(async () => qrUntil(Math.ceil(Date.now() / WINDOW) * WINDOW + WINDOW));
    await run(5000);
    expect(useHost.getState().qrExpired).toBe(false);
    expect(useHost.getState().qr?.token).toBe(`t${Math.ceil(Date.now() / WINDOW) * WINDOW + WINDOW}`);
  });

  it('asks for no code once the event is over, whether it ends while shown or was over when opened', async () => {
    answers(TURN - 30_000);
    const endsSoon = { ...publicEvent({ id: 7, ends_at: new Date(TURN - 20_000).toISOString() }), is_organizer: true as const };
    api.myEvents.mockResolvedValue({ results: [endsSoon], next: null });
    api.eventQr.mockResolvedValue(qrUntil(TURN + WINDOW));
    stop = openHostScreen(7);
    await run(0);
    expect(api.eventQr).toHaveBeenCalledTimes(1);
    // The end comes before the next code is due: none is asked for, then or later, nor on coming back.
    await run(3 * WINDOW);
    comeBack();
    await run(0);
    expect(api.eventQr).toHaveBeenCalledTimes(1);
    stop();

    api.eventQr.mockClear();
    api.myEvents.mockResolvedValue({ results: [{ ...endsSoon, status: 'after' }], next: null });
    stop = openHostScreen(7);
    await run(0);
    expect(useHost.getState().event?.status).toBe('after');
    expect(api.eventQr).not.toHaveBeenCalled();
  });

  it('gives the keyboard back to the page’s heading when the big screen closes on an event that ended under it', async () => {
    answers(TURN - 30_000);
    const endsSoon = { ...publicEvent({ id: 7, name: 'Roof party', ends_at: new Date(TURN - 20_000).toISOString() }), is_organizer: true as const };
    api.myEvents.mockResolvedValue({ results: [endsSoon], next: null });
    api.eventQr.mockResolvedValue(qrUntil(TURN + WINDOW));
    renderHostScreen();
    await run(0);
    fireEvent.click(screen.getByRole('button', { name: enEvents['host.present'] }));
    // The end comes while the queue looks at the big screen: the door, and the button that opened it, go.
    await run(20_000);
    expect(screen.queryByRole('button', { name: enEvents['host.present'] })).toBeNull();
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: enEvents['host.presentClose'] }));
    await run(50);
    expect(document.activeElement).toBe(screen.getByRole('heading', { level: 1, name: 'Roof party' }));
  });

  /** What the host screen's door (the code, and what is said with it) says once rendered; then put away. */
  async function doorSaid(): Promise<string> {
    const { unmount } = renderHostScreen();
    await run(0);
    const said = document.querySelector('.host-door')!.textContent!;
    unmount();
    stop();
    vi.useRealTimers();
    return said;
  }

  it('says when its link points at this computer itself, which no phone can open', async () => {
    const shown = async (origin: string) => {
      answers(TURN - 30_000);
      api.eventQr.mockResolvedValue(qrUntil(TURN + WINDOW, origin));
      return doorSaid();
    };
    const here = (host: string) => enEvents['host.qrLocal'].replace('{host}', host);
    expect(await shown('http://localhost:3000')).toContain(here('localhost:3000'));
    expect(await shown('http://127.0.0.1:3000')).toContain(here('127.0.0.1:3000'));
    expect(await shown('http://[::1]:3000')).toContain(here('[::1]:3000'));
    for (const reachable of ['http://192.168.1.20:3000', 'https://party.example.com', 'http://laptop.local:3000']) {
      const said = await shown(reachable);
      expect(said).toContain(enEvents['host.scan']);
      expect(said).not.toContain(here(new URL(reachable).host));
    }
  });

  it('asks an organizer whose e-mail is not verified to verify it, at a QR door only: till then its guests sign up per address', async () => {
    const shown = async (verified: boolean, joinMode: 'qr' | 'code') => {
      answers(TURN - 30_000);
      api.myEvents.mockResolvedValue({ results: [{ ...publicEvent({ id: 7, join_mode: joinMode }), is_organizer: true as const }], next: null });
      api.eventQr.mockResolvedValue(qrUntil(TURN + WINDOW));
      useSession.setState({ user: currentUser({ email_verified: verified }) });
      const said = await doorSaid();
      useSession.setState({ user: undefined });
      return said;
    };
    expect(await shown(false, 'qr')).toContain(enEvents['host.verifyDoor']);
    expect(await shown(true, 'qr')).not.toContain(enEvents['host.verifyDoor']);
    expect(await shown(false, 'code')).not.toContain(enEvents['host.verifyDoor']);
  });

  /** The screen, on a computer whose clock is `serverAhead` off the server's, at TURN - 30 s by the server's. */
  const minutes = 60_000;
  function hostScreenOffBy(
    ahead: number,
    event = publicEvent({ id: 7, starts_at: new Date(TURN - 60 * minutes).toISOString(), ends_at: new Date(TURN + 240 * minutes).toISOString() }),
  ) {
    serverAhead = ahead;
    answers(TURN - 30_000 - ahead);
    api.myEvents.mockResolvedValue({ results: [{ ...event, is_organizer: true as const }], next: null });
    renderHostScreen();
  }

  it('times the code by the server’s clock on a computer whose clock is behind: dead at its end, not minutes later', async () => {
    hostScreenOffBy(5 * minutes);
    api.eventQr.mockImplementationOnce(async () => qrUntil(TURN + WINDOW)).mockRejectedValue(new TypeError('Failed to fetch'));
    await run(0);
    expect(useHost.getState().qr?.token).toBe(`t${TURN + WINDOW}`);
    await run(30_000 + WINDOW - 1);
    expect(useHost.getState().qrExpired).toBe(false);
    await run(1);
    expect(useHost.getState().qrExpired).toBe(true);
  });

  it('asks for the next code once a window on a computer whose clock is ahead, not every few seconds', async () => {
    hostScreenOffBy(-5 * minutes);
    serveQr(TURN + WINDOW, TURN + 2 * WINDOW, TURN + 3 * WINDOW);
    await run(0);
    expect(api.eventQr).toHaveBeenCalledTimes(1);
    await run(30_000 - QR_EARLY_SECONDS * 1000);
    expect(api.eventQr).toHaveBeenCalledTimes(1);
    await run(QR_EARLY_SECONDS * 1000);
    expect(api.eventQr).toHaveBeenCalledTimes(2);
    expect(useHost.getState().qrExpired).toBe(false);
  });

  it('keeps the door open until the event ends by the server’s clock, whichever way this computer’s is off', async () => {
    // Ends in two minutes, by the server; five minutes gone here already.
    const endsSoon = () =>
      publicEvent({ id: 7, starts_at: new Date(TURN - 60 * minutes).toISOString(), ends_at: new Date(TURN - 30_000 + 2 * minutes).toISOString() });
    serveQr(TURN + WINDOW, TURN + 2 * WINDOW, TURN + 3 * WINDOW, TURN + 4 * WINDOW);
    hostScreenOffBy(-5 * minutes, endsSoon());
    await run(0);
    expect(api.eventQr).toHaveBeenCalledTimes(1);
    expect(document.querySelector('.host-door')?.textContent).toContain(enEvents['host.scan']);
    await run(2 * minutes - 1000);
    expect(api.eventQr).toHaveBeenCalledTimes(3);
    expect(document.querySelector('.host-door')).not.toBeNull();
    // Over: no code is asked for any more, and the door closes.
    await run(2000);
    await run(3 * WINDOW);
    expect(api.eventQr).toHaveBeenCalledTimes(3);
    expect(document.querySelector('.host-door')).toBeNull();
    cleanup();
    vi.useRealTimers();
    api.eventQr.mockClear();

    // Five minutes yet to come here: the end, by the server's clock, stops the codes all the same.
    serveQr(TURN + WINDOW, TURN + 2 * WINDOW, TURN + 3 * WINDOW, TURN + 4 * WINDOW);
    hostScreenOffBy(5 * minutes, endsSoon());
    await run(0);
    await run(2 * minutes + 1000);
    await run(3 * WINDOW);
    expect(api.eventQr).toHaveBeenCalledTimes(3);
    expect(document.querySelector('.host-door')).toBeNull();
  });

  it('names the event in its alt in a Unicode isolate (FSI … PDI): an attribute holds no <bdi>', async () => {
    answers(TURN - 30_000);
    const name = 'שישי 90';
    api.myEvents.mockResolvedValue({ results: [{ ...publicEvent({ id: 7, name }), is_organizer: true as const }], next: null });
    serveQr(TURN + WINDOW);
    renderHostScreen();
    await run(0);
    expect(document.querySelector('.host-qr img')!.getAttribute('alt')).toBe(enEvents['host.qrAlt'].replace('{name}', `\u2068${name}\u2069`));
  });
});
