// @vitest-environment jsdom
/**
 * A code typed on the events page before the server has said where the user is (and with no event kept
 * on this device) waits for that answer: joining another event leaves the one they are at, which is
 * asked first, as it is once the page knows. The api is faked: where the user is, the code's event, the
 * check-in.
 */
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { enEvents } from '../../shared/i18n/en-events';
import { en } from '../../shared/i18n/en';
import { NetworkError } from '../../client/lib/api';
import { later } from '../helpers/later';
import { publicEvent } from '../helpers/public-event';
import { currentUser } from '../helpers/current-user';

vi.mock(import('../../client/lib/socket'), async (original) => ({
  ...(await original()),
  isConnected: () => true,
  onConnect: () => () => {},
  onReconnect: () => () => {},
  onEvent: () => () => {},
}));
const api = vi.hoisted(() => ({ event: vi.fn(), currentEvent: vi.fn(), checkIn: vi.fn(), myEvents: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { Events } = await import('../../client/pages/events/Events');
const { initLanguage } = await import('../../client/lib/i18n');
const { useEvents } = await import('../../client/stores/events');
const { useSession } = await import('../../client/stores/session');
await import('../../client/lib/messages-events');

const here = publicEvent({ id: 1, code: 'ABC234', name: 'Fiesta' });
const other = publicEvent({ id: 2, code: 'XYZ789', name: 'Afterparty', join_mode: 'code' });

/** The events page, opened: its join form's code field. */
function openEvents() {
  render(
    <Router hook={memoryLocation({ path: '/app/events/' }).hook}>
      <Suspense fallback={null}>
        <Events />
      </Suspense>
    </Router>,
  );
  return screen.findByRole('textbox', { name: enEvents['events.join.label'] });
}

/** The events page, opened, with `code` typed in its join form and sent. */
async function typeCode(code: string) {
  fireEvent.change(await openEvents(), { target: { value: code } });
  fireEvent.click(screen.getByRole('button', { name: enEvents['events.join.submit'] }));
}

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  useSession.setState({ token: 'token', user: currentUser() });
  api.myEvents.mockResolvedValue({ results: [], next: null });
  api.event.mockResolvedValue(other);
  api.checkIn.mockResolvedValue({ event: other });
});
afterEach(() => {
  cleanup();
  vi.resetAllMocks();
  useEvents.getState().reset();
  localStorage.clear();
});

describe('the code field', () => {
  it('is named by its label alone, the line under it its description: a screen reader says that line once', async () => {
    api.currentEvent.mockResolvedValue({ event: null, now: new Date().toISOString() });
    // Found by its exact name (the label's words, nothing more) and its description.
    const field = await openEvents();
    expect(screen.getByRole('textbox', { description: enEvents['events.join.help'] })).toBe(field);
  });
});

describe('a code typed before the page knows where the user is', () => {
  it('waits for the answer, and asks before leaving the event they are at', async () => {
    const where = later<{ event: typeof here; now: string }>();
    api.currentEvent.mockReturnValue(where.promise);
    await typeCode(other.code);
    where.resolve({ event: here, now: new Date().toISOString() });
    expect(await screen.findByRole('dialog', { name: enEvents['events.switch.title'].replace('{name}', 'Fiesta') })).toBeTruthy();
    expect(api.checkIn).not.toHaveBeenCalled();
  });

  it('hears where the user is from a read sent while it waits (a catch-up), answered after its own', async () => {
    const opening = later<{ event: typeof here; now: string }>();
    const joining = later<{ event: typeof here; now: string }>();
    const catchUp = later<{ event: typeof here; now: string }>();
    api.currentEvent.mockReturnValueOnce(opening.promise).mockReturnValueOnce(joining.promise).mockReturnValueOnce(catchUp.promise);
    await typeCode(other.code);
    // The socket connects, or the tab comes back into view: where the user is, asked again.
    void useEvents.getState().loadCurrent();
    joining.resolve({ event: here, now: new Date().toISOString() });
    // Its answer comes in a later task, as the network's do, once all that the first one set going is done.
    await new Promise((resolve) => setTimeout(resolve, 0));
    catchUp.resolve({ event: here, now: new Date().toISOString() });
    expect(await screen.findByRole('dialog', { name: enEvents['events.switch.title'].replace('{name}', 'Fiesta') })).toBeTruthy();
    expect(screen.queryByText(en['error.network'])).toBeNull();
    expect(api.checkIn).not.toHaveBeenCalled();
  });

  it('enters at once when the answer is none', async () => {
    api.currentEvent.mockResolvedValue({ event: null, now: new Date().toISOString() });
    await typeCode(other.code);
    await vi.waitFor(() => expect(api.checkIn).toHaveBeenCalledWith(other.code, {}));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('with no answer, says so and does not check in', async () => {
    api.currentEvent.mockRejectedValue(new TypeError('offline'));
    await typeCode(other.code);
    expect(await screen.findByText(en['error.network'])).toBeTruthy();
    expect(api.checkIn).not.toHaveBeenCalled();
  });
});

describe('the join button', () => {
  it('keeps the focus while it reads the code and when that fails, and a second press sends nothing', async () => {
    api.currentEvent.mockResolvedValue({ event: null, now: new Date().toISOString() });
    const found = later<typeof other>();
    api.event.mockReturnValue(found.promise);
    const field = await openEvents();
    const button = screen.getByRole<HTMLButtonElement>('button', { name: enEvents['events.join.submit'] });
    // Unavailable, not busy: a code that cannot be one leaves it `disabled`.
    fireEvent.change(field, { target: { value: 'AB' } });
    expect(button.disabled).toBe(true);
    fireEvent.change(field, { target: { value: other.code } });
    button.focus();
    fireEvent.click(button);
    // Busy, not `disabled`: a browser moves the focus of a disabled button to <body>.
    await vi.waitFor(() => expect(button.getAttribute('aria-disabled')).toBe('true'));
    expect(button.disabled).toBe(false);
    expect(document.activeElement).toBe(button);
    fireEvent.click(button);
    await vi.waitFor(() => expect(api.event).toHaveBeenCalledTimes(1));

    found.reject(new NetworkError(0, 'Failed to fetch'));
    expect(await screen.findByText(en['error.network'])).toBeTruthy();
    expect(button.getAttribute('aria-disabled')).toBe('false');
    expect(document.activeElement).toBe(button);
    expect(api.event).toHaveBeenCalledTimes(1);
    expect(api.checkIn).not.toHaveBeenCalled();
  });
});
