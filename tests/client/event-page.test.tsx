// @vitest-environment jsdom
/**
 * The public event page `/e/<code>` says one thing at a time: checked in, or why not (the QR token
 * refused, QR only, not open yet, ended), or how to join; never two of them that disagree. The api is
 * faked: the page's event, the exchange of the QR token, where the visitor is, the check-in.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { enEvents } from '../../shared/i18n/en-events';
import type { PublicEvent } from '../../shared/schemas/events';
import { en } from '../../shared/i18n/en';
import { ApiError, NotFound as NotFoundError } from '../../client/lib/api';
import { formatDateTime } from '../../client/lib/format';
import { initLanguage } from '../../client/lib/i18n';
import { getPendingJoin, setPendingJoin } from '../../client/lib/pending-join';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';
import { later } from '../helpers/later';
import { publicEvent } from '../helpers/public-event';

const api = vi.hoisted(() => ({ event: vi.fn(), eventPass: vi.fn(), currentEvent: vi.fn(), checkIn: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { EventPage } = await import('../../client/pages/events/EventPage');

const CODE = 'ABC234';
const EXPIRED = 'This code has expired. Scan the code at the event again.';
const QR_REQUIRED = 'Scan the code at the event to check in.';
const expired = () => new ApiError(403, EXPIRED, 'qr_expired', EXPIRED);

const hour = 3_600_000;
const party = publicEvent;
const ended = { status: 'after', starts_at: new Date(Date.now() - 6 * hour).toISOString(), ends_at: new Date(Date.now() - hour).toISOString() } as const;
const upcoming = { status: 'upcoming', starts_at: new Date(Date.now() + 5 * hour).toISOString(), ends_at: new Date(Date.now() + 9 * hour).toISOString() } as const;

/** "Check-in opens on {time}, …", whatever the time. */
const [notOpenBefore, notOpenAfter] = enEvents['eventPage.notOpen'].split('{time}') as [string, string];
const notOpenLine = (text: string) => text.startsWith(notOpenBefore) && text.endsWith(notOpenAfter);

/** Every line the page may say about getting in, and whether each is on screen. */
const said = () => ({
  expired: screen.queryByText(EXPIRED) !== null,
  qrRequired: screen.queryByText(QR_REQUIRED) !== null,
  qrOnly: screen.queryByText(enEvents['eventPage.qrOnly']) !== null,
  notOpen: screen.queryByText(notOpenLine) !== null,
  ended: screen.queryByText(enEvents['eventPage.ended']) !== null,
  youAreIn: screen.queryByText(enEvents['eventPage.youAreIn']) !== null,
  join: screen.queryByRole('button', { name: enEvents['eventPage.join'] }) !== null,
  signup: screen.queryByRole('link', { name: enEvents['eventPage.signup'] }) !== null,
  signupEarly: screen.queryByRole('link', { name: enEvents['eventPage.signupEarly'] }) !== null,
});
const nothing = { expired: false, qrRequired: false, qrOnly: false, notOpen: false, ended: false, youAreIn: false, join: false, signup: false, signupEarly: false };

/** Where the page has taken the visitor: the last address in its history. */
let location: ReturnType<typeof memoryLocation>;

function renderPage(search = 't=old-token') {
  location = memoryLocation({ path: `/e/${CODE}`, searchPath: search, record: true });
  const { hook, searchHook } = location;
  return render(
    <Router hook={hook} searchHook={searchHook}>
      <Suspense fallback={null}>
        <EventPage code={CODE} />
      </Suspense>
    </Router>,
  );
}

const signIn = () => useSession.setState({ token: 'token', user: currentUser() });

/** The page once it has shown the event and settled. */
async function settled() {
  await screen.findByRole('heading', { name: 'Fiesta' });
  await waitFor(() => expect(api.event).toHaveBeenCalled());
  // Whatever was asked has been answered and shown.
  await new Promise((resolve) => setTimeout(resolve, 20));
}

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  api.eventPass.mockRejectedValue(expired());
  api.currentEvent.mockResolvedValue({ event: null });
});
afterEach(() => {
  cleanup();
  useSession.setState({ token: null, user: undefined });
  localStorage.clear();
  vi.resetAllMocks();
});

describe('the public event page, opened from an old QR link', () => {
  it('shows someone already checked in there only that: no expired code, no "scan to join"', async () => {
    signIn();
    const event = party();
    api.event.mockResolvedValue(event);
    api.currentEvent.mockResolvedValue({ event });
    renderPage();
    await screen.findByText(enEvents['eventPage.youAreIn']);
    await settled();
    expect(said()).toEqual({ ...nothing, youAreIn: true });
    expect(screen.getByRole('link', { name: enEvents['eventPage.toDeck'] })).toBeTruthy();
    expect(api.checkIn).not.toHaveBeenCalled();
  });

  it('does not say "scan to join" while it is still asking where a signed-in visitor is', async () => {
    signIn();
    const event = party();
    api.event.mockResolvedValue(event);
    const where = later<{ event: PublicEvent | null }>();
    api.currentEvent.mockReturnValue(where.promise);
    renderPage();
    await waitFor(() => expect(api.currentEvent).toHaveBeenCalled());
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(said()).toEqual(nothing);
    where.resolve({ event });
    await screen.findByText(enEvents['eventPage.youAreIn']);
    expect(said()).toEqual({ ...nothing, youAreIn: true });
  });

  it('shows someone checked in to an ended event (the after-party) only that they are in', async () => {
    signIn();
    const event = party(ended);
    api.event.mockResolvedValue(event);
    api.currentEvent.mockResolvedValue({ event });
    renderPage();
    await screen.findByText(enEvents['eventPage.youAreIn']);
    await settled();
    expect(said()).toEqual({ ...nothing, youAreIn: true });
  });

  it('for a QR event, says once why the visitor must scan again, and offers an account meanwhile', async () => {
    api.event.mockResolvedValue(party());
    renderPage();
    await settled();
    expect(said()).toEqual({ ...nothing, expired: true, signupEarly: true });
    expect(screen.getByRole('link', { name: enEvents['eventPage.login'] }).getAttribute('href')).toBe('/login/');
    // Ready for the one tap of the next scan; nothing is kept to be joined without it.
    expect(screen.queryByText(enEvents['eventPage.getReady'])).toBeNull();
    fireEvent.click(screen.getByRole('link', { name: enEvents['eventPage.signupEarly'] }));
    expect(getPendingJoin()).toBeNull();
  });

  it('for a QR event and a signed-in visitor, says only why they must scan again', async () => {
    signIn();
    api.event.mockResolvedValue(party());
    renderPage();
    await settled();
    expect(said()).toEqual({ ...nothing, expired: true });
  });

  it('for a code event, does not ask to scan again: the code lets them in', async () => {
    api.event.mockResolvedValue(party({ join_mode: 'code' }));
    renderPage();
    await settled();
    expect(said()).toEqual({ ...nothing, signup: true });
  });

  it('for a code event and a signed-in visitor elsewhere, offers Join without the expired code', async () => {
    signIn();
    api.event.mockResolvedValue(party({ join_mode: 'code' }));
    renderPage();
    await settled();
    expect(said()).toEqual({ ...nothing, join: true });
  });

  it('for an ended event, says only that it has ended', async () => {
    api.event.mockResolvedValue(party(ended));
    renderPage();
    await settled();
    expect(said()).toEqual({ ...nothing, ended: true });
  });

  it('for an event not open yet, tells a signed-in visitor only when check-in opens', async () => {
    signIn();
    api.event.mockResolvedValue(party(upcoming));
    renderPage();
    await settled();
    expect(said()).toEqual({ ...nothing, notOpen: true });
    // When: an hour before the start.
    const opens = new Date(Date.parse(upcoming.starts_at) - hour);
    const time = formatDateTime(opens.getTime(), 'en');
    expect(screen.getByText(notOpenLine).textContent).toBe(enEvents['eventPage.notOpen'].replace('{time}', time));
  });

  it('for an event not open yet, offers a visitor not signed in an account now, and keeps no join for it', async () => {
    api.event.mockResolvedValue(party(upcoming));
    renderPage('');
    await settled();
    expect(said()).toEqual({ ...nothing, notOpen: true, signupEarly: true });
    expect(screen.getByText(enEvents['eventPage.getReady'])).toBeTruthy();
    fireEvent.click(screen.getByRole('link', { name: enEvents['eventPage.signupEarly'] }));
    // Check-in would be refused until the doors open: nothing is waiting to be joined after the sign-up.
    expect(getPendingJoin()).toBeNull();
  });

  it('for a visitor not signed in, keeps a fresh scan’s pass for the sign-up and checks in nobody', async () => {
    api.eventPass.mockResolvedValue({ pass: 'fresh', expires_at: new Date(Date.now() + 30 * 60_000).toISOString(), expires_in_ms: 30 * 60_000 });
    api.event.mockResolvedValue(party());
    renderPage('t=fresh-token');
    await settled();
    expect(api.checkIn).not.toHaveBeenCalled();
    expect(said()).toEqual({ ...nothing, signup: true });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(getPendingJoin()?.pass).toBe('fresh');
  });

  it('keeps the pass for as long as the server says, on a phone whose clock is ahead of the server’s by longer', async () => {
    // By the server's clock the pass is good 30 minutes more: 10 minutes ago, by this phone's.
    const phoneAhead = 40 * 60_000;
    api.eventPass.mockResolvedValue({ pass: 'fresh', expires_at: new Date(Date.now() - phoneAhead + 30 * 60_000).toISOString(), expires_in_ms: 30 * 60_000 });
    api.event.mockResolvedValue(party());
    renderPage('t=fresh-token');
    await settled();
    expect(said()).toEqual({ ...nothing, signup: true });
    expect(getPendingJoin()?.pass).toBe('fresh');
    expect(getPendingJoin()!.expiresAt - Date.now()).toBeGreaterThan(29 * 60_000);
  });

  it('without a token, a QR event says to scan at the event, and offers an account meanwhile', async () => {
    api.event.mockResolvedValue(party());
    renderPage('');
    await settled();
    expect(said()).toEqual({ ...nothing, qrOnly: true, signupEarly: true });
  });
});

describe('the public event page, on a phone whose clock is off', () => {
  const iso = (at: number) => new Date(at).toISOString();

  it('times the event by the server’s time its answer says, for a visitor not signed in', async () => {
    // Five minutes to go by the server's clock: over five minutes ago by this phone's.
    const serverNow = Date.now() - 10 * 60_000;
    api.event.mockResolvedValue({ ...party({ starts_at: iso(serverNow - hour), ends_at: iso(serverNow + 5 * 60_000) }), now: iso(serverNow) });
    renderPage('');
    await settled();
    expect(said()).toEqual({ ...nothing, qrOnly: true, signupEarly: true });
  });

  it('times the event by the server’s time the scan’s pass says, before the page is read', async () => {
    // Another phone's clock than the last test's: what that one measured does not hold here.
    const serverNow = Date.now() - 20 * 60_000;
    api.eventPass.mockResolvedValue({ pass: 'fresh', expires_at: iso(serverNow + 30 * 60_000), expires_in_ms: 30 * 60_000 });
    // An answer that says no time (a server from before `now`): the pass's is the clock.
    api.event.mockResolvedValue(party({ starts_at: iso(serverNow - hour), ends_at: iso(serverNow + 5 * 60_000) }));
    renderPage('t=fresh-token');
    await settled();
    expect(said()).toEqual({ ...nothing, signup: true });
  });
});

describe('the public event page for a code that names no event', () => {
  it('says so, and offers the way on: another code when signed in, the home page when not', async () => {
    api.event.mockRejectedValue(new NotFoundError(404, 'Not found.'));
    renderPage('');
    await screen.findByText(enEvents['eventPage.notFound']);
    expect(screen.getByRole('link', { name: en['notFound.link'] }).getAttribute('href')).toBe('/');
    cleanup();

    signIn();
    renderPage('');
    await screen.findByText(enEvents['eventPage.notFound']);
    expect(screen.getByRole('link', { name: enEvents['eventPage.otherCode'] }).getAttribute('href')).toBe('/app/events/');
  });
});

describe('the public event page, outside the app', () => {
  const back = () => screen.queryByRole('link', { name: enEvents['eventPage.back'] });
  const logo = () => screen.getByRole('link', { name: en['brand.name'] });

  it('offers someone signed in the way back to their deck, where its logo leads too', async () => {
    signIn();
    api.event.mockResolvedValue(party());
    renderPage('');
    await settled();
    expect(said()).toEqual({ ...nothing, qrOnly: true });
    expect(back()?.getAttribute('href')).toBe('/app/home/');
    expect(logo().getAttribute('href')).toBe('/app/home/');
  });

  it('leads a visitor not signed in to the home page', async () => {
    api.event.mockResolvedValue(party());
    renderPage('');
    await settled();
    expect(back()).toBeNull();
    expect(logo().getAttribute('href')).toBe('/');
  });
});

describe('the public event page, when the check-in is refused', () => {
  it('drops a pass refused at the check-in and no longer offers Join for a QR event', async () => {
    signIn();
    setPendingJoin({ code: CODE, pass: 'stale', expiresAt: Date.now() + 60_000 });
    api.event.mockResolvedValue(party());
    api.checkIn.mockRejectedValue(new ApiError(403, QR_REQUIRED, 'qr_required', QR_REQUIRED));
    renderPage('');
    await settled();
    fireEvent.click(screen.getByRole('button', { name: enEvents['eventPage.join'] }));
    await screen.findByText(QR_REQUIRED);
    expect(said()).toEqual({ ...nothing, qrRequired: true });
    expect(getPendingJoin()).toBeNull();
  });

  it('reads the event again when the check-in says it has ended, and says so once', async () => {
    signIn();
    api.event.mockResolvedValueOnce(party({ join_mode: 'code' })).mockResolvedValue(party({ join_mode: 'code', ...ended }));
    api.checkIn.mockRejectedValue(new ApiError(409, enEvents['eventPage.ended'], 'ended', enEvents['eventPage.ended']));
    renderPage('');
    await settled();
    fireEvent.click(screen.getByRole('button', { name: enEvents['eventPage.join'] }));
    await waitFor(() => expect(api.event).toHaveBeenCalledTimes(2));
    await waitFor(() => expect(screen.getAllByText(enEvents['eventPage.ended'])).toHaveLength(1));
    expect(said()).toEqual({ ...nothing, ended: true });
  });
});

describe('the public event page, for a join kept for an event that is not open', () => {
  const fresh = () => api.eventPass.mockResolvedValue({ pass: 'fresh', expires_at: new Date(Date.now() + 30 * 60_000).toISOString(), expires_in_ms: 30 * 60_000 });
  const elsewhere = () => api.currentEvent.mockResolvedValue({ event: party({ id: 2, code: 'XYZ789', name: 'Afterparty' }) });

  it.each([
    ['not open yet', upcoming],
    ['ended', ended],
  ])('drops a scan of an event %s at once, for a visitor at another event: the app would bring them back here', async (_, times) => {
    signIn();
    elsewhere();
    fresh();
    api.event.mockResolvedValue(party(times));
    renderPage('t=fresh-token');
    await settled();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(getPendingJoin()).toBeNull();
  });

  it('drops a scan of an event that has ended for a visitor at no event, whose check-in it refused', async () => {
    signIn();
    fresh();
    api.event.mockResolvedValue(party(ended));
    api.checkIn.mockRejectedValue(new ApiError(409, enEvents['eventPage.ended'], 'ended', enEvents['eventPage.ended']));
    renderPage('t=fresh-token');
    await settled();
    expect(said()).toEqual({ ...nothing, ended: true });
    expect(getPendingJoin()).toBeNull();
  });

  it('drops a join a login kept for a code that names no event', async () => {
    signIn();
    setPendingJoin({ code: CODE, expiresAt: Date.now() + 20 * 60_000 });
    api.event.mockRejectedValue(new NotFoundError(404, 'Not found.'));
    renderPage('');
    await screen.findByText(enEvents['eventPage.notFound']);
    await waitFor(() => expect(getPendingJoin()).toBeNull());
  });
});

describe('the public event page, for a visitor checked in at another event', () => {
  it('says that joining leaves the other one, and checks in only once that is confirmed', async () => {
    signIn();
    api.currentEvent.mockResolvedValue({ event: party({ id: 2, code: 'XYZ789', name: 'Afterparty' }) });
    api.event.mockResolvedValue(party({ join_mode: 'code' }));
    api.checkIn.mockResolvedValue({ event: party({ join_mode: 'code' }) });
    renderPage('');
    await settled();
    const join = () => fireEvent.click(screen.getByRole('button', { name: enEvents['eventPage.join'] }));

    join();
    const sheet = await screen.findByRole('dialog', { name: 'Leave Afterparty?' });
    expect(sheet.textContent).toContain(enEvents['events.switch.body'].replace('{name}', 'Afterparty'));
    fireEvent.click(screen.getByRole('button', { name: enEvents['events.switch.stay'] }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.checkIn).not.toHaveBeenCalled();

    join();
    // Named after where it goes: not "the new one".
    fireEvent.click(await screen.findByRole('button', { name: 'Join Fiesta' }));
    await waitFor(() => expect(api.checkIn).toHaveBeenCalledWith(CODE, {}));
  });

  it('asks before a scan at this door takes them out of the other one; staying drops the scan', async () => {
    signIn();
    api.currentEvent.mockResolvedValue({ event: party({ id: 2, code: 'XYZ789', name: 'Afterparty' }) });
    api.eventPass.mockResolvedValue({ pass: 'fresh', expires_at: new Date(Date.now() + 30 * 60_000).toISOString(), expires_in_ms: 30 * 60_000 });
    api.event.mockResolvedValue(party());
    api.checkIn.mockResolvedValue({ event: party() });
    renderPage('t=fresh-token');
    await screen.findByRole('dialog', { name: 'Leave Afterparty?' });
    expect(api.checkIn).not.toHaveBeenCalled();

    fireEvent.click(screen.getByRole('button', { name: enEvents['events.switch.stay'] }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.checkIn).not.toHaveBeenCalled();
    expect(getPendingJoin()).toBeNull();
    // Back to the deck of the event they stay at, not told to scan at the door they just scanned.
    await waitFor(() => expect(location.history.at(-1)).toBe('/app/home/'));
  });

  it('asks about the join a login kept, when the account turned out to be at another event, and joins with its pass', async () => {
    setPendingJoin({ code: CODE, pass: 'kept', expiresAt: Date.now() + 20 * 60_000 });
    signIn();
    api.currentEvent.mockResolvedValue({ event: party({ id: 2, code: 'XYZ789', name: 'Afterparty' }) });
    api.event.mockResolvedValue(party());
    api.checkIn.mockResolvedValue({ event: party() });
    renderPage('');
    await screen.findByRole('dialog', { name: 'Leave Afterparty?' });
    fireEvent.click(screen.getByRole('button', { name: 'Join Fiesta' }));
    await waitFor(() => expect(api.checkIn).toHaveBeenCalledWith(CODE, { pass: 'kept' }));
  });

  it('checks a visitor at no event in at once', async () => {
    signIn();
    api.event.mockResolvedValue(party({ join_mode: 'code' }));
    api.checkIn.mockResolvedValue({ event: party({ join_mode: 'code' }) });
    renderPage('');
    await settled();
    fireEvent.click(screen.getByRole('button', { name: enEvents['eventPage.join'] }));
    await waitFor(() => expect(api.checkIn).toHaveBeenCalledWith(CODE, {}));
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
