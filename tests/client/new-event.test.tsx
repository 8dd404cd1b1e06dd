// @vitest-environment jsdom
/**
 * Creating an event takes the organizer to its host screen in place of the form: Back then goes to
 * where they came from, not to a blank form that would make the same event twice. Changing one sends
 * only what changed, and never the start of an event that has started.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Suspense } from 'react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { enEvents } from '../../shared/i18n/en-events';
import { esEvents } from '../../shared/i18n/es-events';
import { initLanguage, useLanguage } from '../../client/lib/i18n';
import { ApiError, NotFound, Throttled, ValidationError } from '../../client/lib/api';
import { formatDateTime, formatTime } from '../../client/lib/format';
import { EVENT_NAME_MAX_LENGTH, EVENT_VENUE_MAX_LENGTH, EVENTS_CREATED_PER_DAY } from '../../shared/constants';
import { format } from '../../shared/i18n/format';
import { useServerAhead } from '../../client/lib/server-clock';
import { useToasts } from '../../client/lib/toast';
import { pasteAsBrowser } from '../helpers/paste';
import { currentUser } from '../helpers/current-user';
import { useSession } from '../../client/stores/session';

const api = vi.hoisted(() => ({ createEvent: vi.fn(), updateEvent: vi.fn(), myEvents: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { NewEvent } = await import('../../client/pages/events/NewEvent');

/** The end's field, by a name that begins with its label: the help that may follow (the next day) is in it. */
const endsLabel = new RegExp(`^${enEvents['events.new.ends']}`);

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
});
afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
  vi.resetAllMocks();
});

describe('the new-event form', () => {
  it('replaces itself in the history with the new event’s host screen', async () => {
    api.createEvent.mockResolvedValue({ id: 42 });
    const location = memoryLocation({ path: '/app/events/', record: true });
    location.navigate('/app/events/new/');
    render(
      <Router hook={location.hook} searchHook={location.searchHook}>
        <Suspense fallback={null}>
          <NewEvent />
        </Suspense>
      </Router>,
    );
    fireEvent.change(await screen.findByLabelText(enEvents['events.new.name']), { target: { value: 'Fiesta' } });
    fireEvent.click(screen.getByRole('button', { name: enEvents['events.new.submit'] }));
    await waitFor(() => expect(api.createEvent).toHaveBeenCalledTimes(1));
    await waitFor(() => expect(location.history).toEqual(['/app/events/', '/app/events/42/host/']));
  });

  it('starts at the quarter hour just gone by the server’s clock, not by a phone’s minutes behind it', async () => {
    // 21:50 on the phone, 22:10 by the server: the party is open as soon as it is made.
    vi.useFakeTimers({ now: new Date(2030, 5, 14, 21, 50), toFake: ['Date'] });
    useServerAhead.setState(20 * 60_000, true);
    try {
      render(
        <Suspense fallback={null}>
          <NewEvent />
        </Suspense>,
      );
      expect(((await screen.findByLabelText(enEvents['events.new.starts'])) as HTMLInputElement).value).toBe('2030-06-14T22:00');
      expect((screen.getByLabelText(endsLabel) as HTMLInputElement).value).toBe('2030-06-15T03:00');
    } finally {
      useServerAhead.setState(0, true);
      vi.useRealTimers();
    }
  });

  it('asks for a start and an end cleared in the picker, and sends nothing', async () => {
    render(
      <Suspense fallback={null}>
        <NewEvent />
      </Suspense>,
    );
    fireEvent.change(await screen.findByLabelText(enEvents['events.new.name']), { target: { value: 'Fiesta' } });
    const starts = screen.getByLabelText(enEvents['events.new.starts']);
    fireEvent.change(starts, { target: { value: '' } });
    fireEvent.change(screen.getByLabelText(endsLabel), { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: enEvents['events.new.submit'] }));
    expect(await screen.findAllByText(enEvents['events.new.timeMissing'])).toHaveLength(2);
    expect(starts.getAttribute('aria-invalid')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(starts));
    expect(api.createEvent).not.toHaveBeenCalled();

    // Said again in Spanish after a switch of language, where the focus is now: not taken back to the field.
    const elsewhere = screen.getByRole('button', { name: enEvents['events.new.submit'] });
    elsewhere.focus();
    await act(() => useLanguage.getState().setLanguage('es'));
    expect(await screen.findAllByText(esEvents['events.new.timeMissing'])).toHaveLength(2);
    expect(document.activeElement).toBe(elsewhere);
  });
  /** The new-event form's two free-text fields, each with the limit the server counts it against. */
  async function textFields() {
    render(
      <Suspense fallback={null}>
        <NewEvent />
      </Suspense>,
    );
    return [
      [(await screen.findByLabelText(enEvents['events.new.name'])) as HTMLInputElement, EVENT_NAME_MAX_LENGTH],
      [screen.getByLabelText(enEvents['events.new.venue']) as HTMLInputElement, EVENT_VENUE_MAX_LENGTH],
    ] as const;
  }
  it('counts an emoji in the name and the venue as one character, as the server does, up to its limits', async () => {
    const fields = await textFields();
    for (const [field, max] of fields) {
      fireEvent.change(field, { target: { value: '🎉'.repeat(10) } });
      // Room for the rest in letters, which the field's maxLength counts in UTF-16 units.
      expect(field.maxLength - field.value.length).toBe(max - 10);
      // Full as the server counts it: no room for more, a letter or an emoji.
      fireEvent.change(field, { target: { value: `${'a'.repeat(max - 10)}${'🎉'.repeat(10)}` } });
      expect(field.maxLength).toBe(field.value.length);
    }
  });
  it('keeps as many emoji of a pasted name and venue as the server takes, one character each', async () => {
    for (const [field, max] of await textFields()) {
      pasteAsBrowser(field, '🎉'.repeat(max + 5));
      expect(field.value).toBe('🎉'.repeat(max));
    }
  });
});

describe('the day\'s limit of new events', () => {
  it('says the limit and from when the next can be made, in English and Spanish, not a bare “Too many attempts”', async () => {
    vi.useFakeTimers({ now: new Date(2030, 5, 14, 21, 50), toFake: ['Date'] });
    try {
      // As the server answers the eleventh of the day: 429, Retry-After from the first one's age.
      const refused = new Throttled(429, 'Request was throttled. Expected available in 18000 seconds.');
      refused.retryAfterSeconds = 5 * 3600;
      api.createEvent.mockRejectedValue(refused);
      const next = new Date(2030, 5, 15, 2, 50).getTime();
      render(
        <Suspense fallback={null}>
          <NewEvent />
        </Suspense>,
      );
      fireEvent.change(await screen.findByLabelText(enEvents['events.new.name']), { target: { value: 'Fiesta' } });
      fireEvent.click(screen.getByRole('button', { name: enEvents['events.new.submit'] }));
      expect((await screen.findByRole('alert')).textContent).toBe(
        format(enEvents['events.new.limit'], { limit: EVENTS_CREATED_PER_DAY, time: formatDateTime(next, 'en') }),
      );

      await act(() => useLanguage.getState().setLanguage('es'));
      fireEvent.click(screen.getByRole('button', { name: esEvents['events.new.submit'] }));
      await waitFor(() =>
        expect(screen.getByRole('alert').textContent).toBe(format(esEvents['events.new.limit'], { limit: EVENTS_CREATED_PER_DAY, time: formatDateTime(next, 'es') })),
      );
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the times of a party past midnight', () => {
  const renderForm = async () => {
    render(
      <Suspense fallback={null}>
        <NewEvent />
      </Suspense>,
    );
    fireEvent.change(await screen.findByLabelText(enEvents['events.new.name']), { target: { value: 'Fiesta' } });
    return {
      starts: screen.getByLabelText(enEvents['events.new.starts']) as HTMLInputElement,
      ends: screen.getByLabelText(endsLabel) as HTMLInputElement,
    };
  };
  const moment = (local: string) => new Date(local).toISOString();

  it('takes an end at or before the start on its day as the next morning’s, and says so', async () => {
    api.createEvent.mockResolvedValue({ id: 42 });
    const { starts, ends } = await renderForm();
    fireEvent.change(starts, { target: { value: '2030-06-14T23:00' } });
    fireEvent.change(ends, { target: { value: '2030-06-14T04:00' } });
    fireEvent.blur(ends);
    expect(ends.value).toBe('2030-06-15T04:00');
    expect(screen.getByText(enEvents['events.new.endsNextDay'])).toBeTruthy();
    // Sent as it was typed too, when the form is sent straight from the field.
    fireEvent.change(ends, { target: { value: '2030-06-14T23:00' } });
    fireEvent.click(screen.getByRole('button', { name: enEvents['events.new.submit'] }));
    await waitFor(() => expect(api.createEvent).toHaveBeenCalledTimes(1));
    expect(api.createEvent.mock.calls[0]![0]).toMatchObject({ starts_at: moment('2030-06-14T23:00'), ends_at: moment('2030-06-15T23:00') });
  });

  it('says the next day as soon as the end is picked, not once the field lets go: the button it pushes down would miss the tap', async () => {
    const { starts, ends } = await renderForm();
    fireEvent.change(starts, { target: { value: '2030-06-14T23:00' } });
    fireEvent.change(ends, { target: { value: '2030-06-14T04:00' } });
    expect(screen.getByText(enEvents['events.new.endsNextDay'])).toBeTruthy();
    // Letting go only writes the date the field already said: nothing comes or goes around the button.
    fireEvent.blur(ends);
    expect(ends.value).toBe('2030-06-15T04:00');
    expect(screen.getAllByText(enEvents['events.new.endsNextDay'])).toHaveLength(1);
  });

  it('moves the end with the start, keeping the length', async () => {
    const { starts, ends } = await renderForm();
    fireEvent.change(starts, { target: { value: '2030-06-14T21:00' } });
    fireEvent.change(ends, { target: { value: '2030-06-15T03:00' } });
    fireEvent.change(starts, { target: { value: '2030-06-14T23:30' } });
    expect(ends.value).toBe('2030-06-15T05:30');
    fireEvent.change(starts, { target: { value: '2030-06-20T23:30' } });
    expect(ends.value).toBe('2030-06-21T05:30');
    // The same day: no word about the next one.
    fireEvent.change(starts, { target: { value: '2030-06-20T12:00' } });
    expect(ends.value).toBe('2030-06-20T18:00');
    expect(screen.queryByText(enEvents['events.new.endsNextDay'])).toBeNull();
  });
});

/**
 * A reload, or the phone's dropping the locked tab: the page goes without anything unmounted in it,
 * and the tab's session storage stays as it was.
 */
function reload() {
  const kept = Object.entries(sessionStorage);
  cleanup();
  sessionStorage.clear();
  for (const [key, value] of kept) sessionStorage.setItem(key, value);
}

describe('the new-event form, reloaded', () => {
  const renderNew = () =>
    render(
      <Suspense fallback={null}>
        <NewEvent />
      </Suspense>,
    );

  it('gives back what the organizer typed and chose', async () => {
    renderNew();
    fireEvent.change(await screen.findByLabelText(enEvents['events.new.name']), { target: { value: 'Fiesta' } });
    fireEvent.change(screen.getByLabelText(enEvents['events.new.venue']), { target: { value: 'Sala 2' } });
    fireEvent.click(screen.getByLabelText(new RegExp(enEvents['events.new.joinMode.code'])));

    reload();
    renderNew();
    expect(await screen.findByLabelText(enEvents['events.new.name'])).toHaveProperty('value', 'Fiesta');
    expect(screen.getByLabelText(enEvents['events.new.venue'])).toHaveProperty('value', 'Sala 2');
    expect(screen.getByLabelText(new RegExp(enEvents['events.new.joinMode.code']))).toHaveProperty('checked', true);
  });

  it('gives back the times set while they are to come, and starts from now once they have passed', async () => {
    vi.useFakeTimers({ now: new Date(2030, 5, 14, 18, 5), toFake: ['Date'] });
    try {
      renderNew();
      fireEvent.change(await screen.findByLabelText(enEvents['events.new.name']), { target: { value: 'Fiesta' } });
      fireEvent.change(screen.getByLabelText(enEvents['events.new.starts']), { target: { value: '2030-06-14T22:00' } });
      fireEvent.change(screen.getByLabelText(endsLabel), { target: { value: '2030-06-15T04:00' } });

      // Reloaded the same evening: the party is still to come.
      reload();
      renderNew();
      expect(await screen.findByLabelText(enEvents['events.new.starts'])).toHaveProperty('value', '2030-06-14T22:00');
      expect(screen.getByLabelText(endsLabel)).toHaveProperty('value', '2030-06-15T04:00');
      expect(screen.queryByText(enEvents['events.new.timesPassed'])).toBeNull();

      // Opened again a week later: not last week's times, which the server would refuse, nor an
      // event that started days ago; the rest as typed.
      vi.setSystemTime(new Date(2030, 5, 21, 15, 5));
      reload();
      renderNew();
      expect(await screen.findByLabelText(enEvents['events.new.name'])).toHaveProperty('value', 'Fiesta');
      const starts = screen.getByLabelText(enEvents['events.new.starts']);
      expect(starts).toHaveProperty('value', '2030-06-21T15:00');
      expect(screen.getByLabelText(endsLabel)).toHaveProperty('value', '2030-06-21T20:00');
      expect(starts.getAttribute('aria-describedby')).toContain('starts-help');
      expect(screen.getByText(enEvents['events.new.timesPassed'])).toBeTruthy();

      // Picked again: the line has said what it had to.
      fireEvent.change(starts, { target: { value: '2030-06-21T22:00' } });
      expect(screen.queryByText(enEvents['events.new.timesPassed'])).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives it back to the same user after a session the server ended, and to no one else', async () => {
    useSession.getState().signIn('token');
    useSession.setState({ user: currentUser() });
    renderNew();
    fireEvent.change(await screen.findByLabelText(enEvents['events.new.name']), { target: { value: 'Fiesta' } });
    // Ended from another device: signed out with the form on screen, which goes on the way to the
    // login page (unmounted, not sent nor left); then the same user signs in again in this tab.
    useSession.getState().signOut({ alreadyRevoked: true, keepOutbox: true });
    cleanup();
    useSession.getState().signIn('token-2');
    useSession.setState({ user: currentUser() });
    // Then the page loaded anew onto the form (a reload, the address typed), before the server has
    // said who is signed in: the user the app kept on the device with the token.
    await import('../../client/stores/device');
    reload();
    useSession.setState({ user: undefined });
    renderNew();
    expect(await screen.findByLabelText(enEvents['events.new.name'])).toHaveProperty('value', 'Fiesta');

    reload();
    useSession.getState().signOut({ alreadyRevoked: true, keepOutbox: true });
    useSession.getState().signIn('token-3');
    useSession.setState({ user: currentUser({ id: 2 }) });
    renderNew();
    expect(await screen.findByLabelText(enEvents['events.new.name'])).toHaveProperty('value', '');
    useSession.getState().signOut({ alreadyRevoked: true });
  });

  it('starts blank again once the event is made, or the form is left', async () => {
    api.createEvent.mockResolvedValue({ id: 42 });
    renderNew();
    fireEvent.change(await screen.findByLabelText(enEvents['events.new.name']), { target: { value: 'Fiesta' } });
    fireEvent.click(screen.getByRole('button', { name: enEvents['events.new.submit'] }));
    await waitFor(() => expect(api.createEvent).toHaveBeenCalledTimes(1));
    cleanup();
    renderNew();
    expect(await screen.findByLabelText(enEvents['events.new.name'])).toHaveProperty('value', '');
    expect(Object.keys(sessionStorage)).toEqual([]);
  });
});

describe('the edit-event form', () => {
  const HOUR = 3_600_000;
  const organized = (overrides: Record<string, unknown> = {}) => ({
    id: 7,
    code: 'K7RM2Q',
    name: 'Rooftop party',
    venue: 'The roof',
    starts_at: new Date(Date.now() + 2 * HOUR).toISOString(),
    ends_at: new Date(Date.now() + 6 * HOUR).toISOString(),
    join_mode: 'qr',
    status: 'upcoming',
    attendee_count: 0,
    is_organizer: true,
    ...overrides,
  });
  const renderAt = async (event: ReturnType<typeof organized>) => {
    api.myEvents.mockResolvedValue({ results: [event], next: null });
    const { EditEvent } = await import('../../client/pages/events/EditEvent');
    const location = memoryLocation({ path: '/app/events/7/host/', record: true });
    location.navigate('/app/events/7/edit/');
    render(
      <Router hook={location.hook} searchHook={location.searchHook}>
        <Suspense fallback={null}>
          <EditEvent id={7} />
        </Suspense>
      </Router>,
    );
    return location;
  };

  it('shows the event as it is, sends only what changed, and replaces itself with the host screen', async () => {
    const event = organized();
    api.updateEvent.mockResolvedValue({ ...event, name: 'Terrace party' });
    const location = await renderAt(event);
    const name = await screen.findByLabelText(enEvents['events.new.name']);
    expect(name).toHaveProperty('value', 'Rooftop party');
    expect(screen.getByLabelText(enEvents['events.new.starts'])).toHaveProperty('disabled', false);
    fireEvent.change(name, { target: { value: 'Terrace party' } });
    fireEvent.click(screen.getByLabelText(new RegExp(enEvents['events.new.joinMode.code'])));
    fireEvent.click(screen.getByRole('button', { name: enEvents['events.edit.submit'] }));
    await waitFor(() => expect(api.updateEvent).toHaveBeenCalledWith(7, { name: 'Terrace party', join_mode: 'code' }));
    await waitFor(() => expect(location.history).toEqual(['/app/events/7/host/', '/app/events/7/host/']));
  });

  it('leaves room for the rest of a name with emoji, each one character as the server counts them', async () => {
    await renderAt(organized({ name: `Fiesta ${'🎉'.repeat(20)}` }));
    const name = (await screen.findByLabelText(enEvents['events.new.name'])) as HTMLInputElement;
    expect(name.maxLength - name.value.length).toBe(EVENT_NAME_MAX_LENGTH - 27);
  });

  it('opened from the host screen, goes back to it: saved, unchanged (nothing sent) or cancelled', async () => {
    const event = organized();
    window.history.replaceState({ from: 'host' }, '');
    const back = vi.spyOn(window.history, 'back').mockImplementation(() => {});
    try {
      const location = await renderAt(event);
      await screen.findByLabelText(enEvents['events.new.name']);
      fireEvent.click(screen.getByRole('button', { name: enEvents['events.edit.submit'] }));
      await waitFor(() => expect(back).toHaveBeenCalledTimes(1));
      expect(api.updateEvent).not.toHaveBeenCalled();
      fireEvent.click(screen.getByRole('button', { name: enEvents['host.cancel'] }));
      await waitFor(() => expect(back).toHaveBeenCalledTimes(2));
      // No entry of its own was added on the way out.
      expect(location.history).toEqual(['/app/events/7/host/', '/app/events/7/edit/']);
    } finally {
      back.mockRestore();
      window.history.replaceState(null, '');
    }
  });

  it('keeps the start of an event that has started, and shows the server’s refusal on its field', async () => {
    const event = organized({ starts_at: new Date(Date.now() - HOUR).toISOString(), status: 'open' });
    api.updateEvent.mockRejectedValue(new ValidationError({ ends_at: ['The end must be in the future.'] }));
    await renderAt(event);
    // Its name is the label alone; the help that says why is its description.
    const starts = await screen.findByLabelText(enEvents['events.new.starts']);
    expect(starts.getAttribute('aria-describedby')).toContain('starts-help');
    expect(starts).toHaveProperty('disabled', true);
    screen.getByText(enEvents['events.edit.startLocked']);
    // Check-in opened long ago: the help under the times no longer says when it opens.
    screen.getByText(enEvents['events.edit.timesHelpStarted']);
    expect(screen.queryByText(enEvents['events.new.timesHelp'])).toBeNull();
    const ends = screen.getByLabelText(endsLabel) as HTMLInputElement;
    const later = new Date(Date.parse(event.ends_at) + HOUR);
    const pad = (value: number) => String(value).padStart(2, '0');
    const local = `${later.getFullYear()}-${pad(later.getMonth() + 1)}-${pad(later.getDate())}T${pad(later.getHours())}:${pad(later.getMinutes())}`;
    fireEvent.change(ends, { target: { value: local } });
    fireEvent.click(screen.getByRole('button', { name: enEvents['events.edit.submit'] }));
    await waitFor(() => expect(api.updateEvent).toHaveBeenCalledTimes(1));
    // The end alone: the locked start is not sent, nor anything left as it was.
    expect(api.updateEvent.mock.calls[0]).toEqual([7, { ends_at: new Date(local).toISOString() }]);
    await screen.findByText('The end must be in the future.');
    expect(ends.getAttribute('aria-invalid')).toBe('true');
    // The field that was refused takes the focus (and is scrolled into view): it may be above the fold.
    // That says the error, its description, once: it is no alert as well, nor part of the field's name.
    await waitFor(() => expect(document.activeElement).toBe(ends));
    expect(screen.getByLabelText(enEvents['events.new.ends'])).toBe(ends);
    expect(screen.queryAllByRole('alert')).toEqual([]);
  });

  it('keeps the start of an event started by the server’s clock, on a computer whose clock is behind', async () => {
    useServerAhead.setState(10 * 60_000, true);
    try {
      await renderAt(organized({ starts_at: new Date(Date.now() + 5 * 60_000).toISOString(), status: 'open' }));
      expect(await screen.findByLabelText(enEvents['events.new.starts'])).toHaveProperty('disabled', true);
    } finally {
      useServerAhead.setState(0, true);
    }
  });

  it('locks the start at the start itself, on a form left open across it', async () => {
    // Check-in has opened (the status changes no more until the end): the start is a minute away.
    vi.useFakeTimers({ now: Date.parse('2030-06-14T20:00:00Z') });
    try {
      await renderAt(organized({ starts_at: new Date(Date.now() + 60_000).toISOString(), status: 'open' }));
      await act(() => vi.advanceTimersByTimeAsync(0));
      const starts = screen.getByLabelText(enEvents['events.new.starts']);
      expect(starts).toHaveProperty('disabled', false);
      await act(() => vi.advanceTimersByTimeAsync(60_000 + 1000));
      expect(starts).toHaveProperty('disabled', true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('asks before an end brought forward to within the hour, and saves it only once confirmed', async () => {
    const event = organized({ starts_at: new Date(Date.now() - HOUR).toISOString(), status: 'open' });
    api.updateEvent.mockResolvedValue(event);
    const location = await renderAt(event);
    const ends = (await screen.findByLabelText(endsLabel)) as HTMLInputElement;
    // A.m. for p.m., or a slip of the finger: the party would end in twenty minutes.
    const soon = new Date(Date.now() + HOUR / 3);
    const pad = (value: number) => String(value).padStart(2, '0');
    const local = `${soon.getFullYear()}-${pad(soon.getMonth() + 1)}-${pad(soon.getDate())}T${pad(soon.getHours())}:${pad(soon.getMinutes())}`;
    fireEvent.change(ends, { target: { value: local } });
    const save = screen.getByRole('button', { name: enEvents['events.edit.submit'] });
    fireEvent.click(save);
    const time = formatTime(new Date(local).toISOString(), 'en');
    const sheet = await screen.findByRole('dialog', { name: enEvents['events.edit.endSoonTitle'].replace('{time}', time) });
    expect(sheet.textContent).toContain(enEvents['events.edit.endSoon']);
    expect(api.updateEvent).not.toHaveBeenCalled();

    // Cancelled: nothing sent, and the form can be saved again.
    fireEvent.click(within(sheet).getByRole('button', { name: enEvents['host.cancel'] }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.updateEvent).not.toHaveBeenCalled();
    await waitFor(() => expect(save).toHaveProperty('disabled', false));

    fireEvent.click(save);
    const again = await screen.findByRole('dialog');
    fireEvent.click(within(again).getByRole('button', { name: enEvents['events.edit.submit'] }));
    await waitFor(() => expect(api.updateEvent).toHaveBeenCalledWith(7, { ends_at: new Date(local).toISOString() }));
    // Saved: the sheet goes, and its entry with it, as the host screen takes the form's place.
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(window.history.state).toBeNull());
    expect(location.history.at(-1)).toBe('/app/events/7/host/');
  });

  it('opened from the host screen, goes back to it once the confirmed end is saved, past the sheet’s own entry', async () => {
    const event = organized({ starts_at: new Date(Date.now() - HOUR).toISOString(), status: 'open' });
    api.updateEvent.mockResolvedValue(event);
    // The host screen's entry, then the form's, opened from it.
    window.history.pushState({ page: 'host' }, '');
    window.history.pushState({ from: 'host' }, '');
    try {
      await renderAt(event);
      const ends = (await screen.findByLabelText(endsLabel)) as HTMLInputElement;
      const soon = new Date(Date.now() + HOUR / 3);
      const pad = (value: number) => String(value).padStart(2, '0');
      const local = `${soon.getFullYear()}-${pad(soon.getMonth() + 1)}-${pad(soon.getDate())}T${pad(soon.getHours())}:${pad(soon.getMinutes())}`;
      fireEvent.change(ends, { target: { value: local } });
      fireEvent.click(screen.getByRole('button', { name: enEvents['events.edit.submit'] }));
      const sheet = await screen.findByRole('dialog');
      // The sheet lies on an entry of its own, as Back closes it.
      await waitFor(() => expect(window.history.state).toHaveProperty('overlay'));
      fireEvent.click(within(sheet).getByRole('button', { name: enEvents['events.edit.submit'] }));
      await waitFor(() => expect(api.updateEvent).toHaveBeenCalledTimes(1));
      await waitFor(() => expect(window.history.state).toEqual({ page: 'host' }));
    } finally {
      window.history.replaceState(null, '');
    }
  });

  it('does not ask about an end the server will refuse: its field says why', async () => {
    const event = organized({ starts_at: new Date(Date.now() - HOUR / 2).toISOString(), status: 'open' });
    api.updateEvent.mockRejectedValue(new ValidationError({ ends_at: ['The end must be after the start.'] }));
    await renderAt(event);
    const ends = (await screen.findByLabelText(endsLabel)) as HTMLInputElement;
    // Before the start, and so already past.
    const before = new Date(Date.now() - HOUR);
    const pad = (value: number) => String(value).padStart(2, '0');
    const local = `${before.getFullYear()}-${pad(before.getMonth() + 1)}-${pad(before.getDate())}T${pad(before.getHours())}:${pad(before.getMinutes())}`;
    fireEvent.change(ends, { target: { value: local } });
    fireEvent.click(screen.getByRole('button', { name: enEvents['events.edit.submit'] }));
    await screen.findByText('The end must be after the start.');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(ends.getAttribute('aria-invalid')).toBe('true');
  });

  it('goes back to the host screen, saying nothing saved, when the event was deleted meanwhile', async () => {
    // Deleted from the organizer's phone while this form was open on the laptop: the host screen it
    // goes back to says the event is gone.
    const event = organized();
    useToasts.setState({ toasts: [] });
    api.updateEvent.mockRejectedValue(new NotFound(404, 'Not found.'));
    const location = await renderAt(event);
    fireEvent.change(await screen.findByLabelText(enEvents['events.new.name']), { target: { value: 'Terrace party' } });
    fireEvent.click(screen.getByRole('button', { name: enEvents['events.edit.submit'] }));
    await waitFor(() => expect(location.history).toEqual(['/app/events/7/host/', '/app/events/7/host/']));
    expect(api.updateEvent).toHaveBeenCalledTimes(1);
    expect(screen.queryByText('Not found.')).toBeNull();
    expect(useToasts.getState().toasts.map((toast) => toast.message)).not.toContain(enEvents['events.edit.saved']);
  });

  it('goes back to the host screen, saying nothing saved, when the event was ended meanwhile', async () => {
    // Ended from the organizer's phone while this form was open on the laptop: the host screen says
    // it is over, rather than a form whose every save is refused.
    const event = organized({ starts_at: new Date(Date.now() - HOUR).toISOString(), status: 'open' });
    useToasts.setState({ toasts: [] });
    api.updateEvent.mockRejectedValue(new ApiError(409, 'This event has ended.', 'ended'));
    const location = await renderAt(event);
    fireEvent.change(await screen.findByLabelText(enEvents['events.new.name']), { target: { value: 'Terrace party' } });
    fireEvent.click(screen.getByRole('button', { name: enEvents['events.edit.submit'] }));
    await waitFor(() => expect(location.history).toEqual(['/app/events/7/host/', '/app/events/7/host/']));
    expect(api.updateEvent).toHaveBeenCalledTimes(1);
    expect(screen.queryByText('This event has ended.')).toBeNull();
    expect(useToasts.getState().toasts.map((toast) => toast.message)).not.toContain(enEvents['events.edit.saved']);
  });

  it('gives back the changes made here after a reload, over what was saved meanwhile elsewhere', async () => {
    const event = organized();
    await renderAt(event);
    fireEvent.change(await screen.findByLabelText(enEvents['events.new.name']), { target: { value: 'Terrace party' } });

    // The venue changed from the organizer's laptop while this phone's tab was away.
    reload();
    await renderAt({ ...event, venue: 'The terrace' });
    expect(await screen.findByLabelText(enEvents['events.new.name'])).toHaveProperty('value', 'Terrace party');
    expect(screen.getByLabelText(enEvents['events.new.venue'])).toHaveProperty('value', 'The terrace');
    api.updateEvent.mockResolvedValue({ ...event, name: 'Terrace party', venue: 'The terrace' });
    fireEvent.click(screen.getByRole('button', { name: enEvents['events.edit.submit'] }));
    await waitFor(() => expect(api.updateEvent).toHaveBeenCalledWith(7, { name: 'Terrace party' }));
  });

  it('gives back the event’s saved times, and says so, for times of a draft that have gone by since', async () => {
    vi.useFakeTimers({ now: new Date(2030, 5, 14, 18, 5), toFake: ['Date'] });
    try {
      const event = organized({ starts_at: new Date(2030, 5, 14, 22).toISOString(), ends_at: new Date(2030, 5, 15, 4).toISOString() });
      await renderAt(event);
      fireEvent.change(await screen.findByLabelText(enEvents['events.new.name']), { target: { value: 'Terrace party' } });
      // Brought forward to 19:00, its end with it: the reload comes after that.
      fireEvent.change(screen.getByLabelText(enEvents['events.new.starts']), { target: { value: '2030-06-14T19:00' } });
      expect(screen.getByLabelText(endsLabel)).toHaveProperty('value', '2030-06-15T01:00');

      vi.setSystemTime(new Date(2030, 5, 14, 20, 10));
      reload();
      await renderAt(event);
      // Not a start moved into the past, which would start the event two hours ago: the saved times,
      // and a line that says why; the rest as typed.
      expect(await screen.findByLabelText(enEvents['events.new.name'])).toHaveProperty('value', 'Terrace party');
      const starts = screen.getByLabelText(enEvents['events.new.starts']);
      expect(starts).toHaveProperty('value', '2030-06-14T22:00');
      expect(screen.getByLabelText(endsLabel)).toHaveProperty('value', '2030-06-15T04:00');
      expect(starts.getAttribute('aria-describedby')).toContain('starts-help');
      screen.getByText(enEvents['events.edit.timesPassed']);
      api.updateEvent.mockResolvedValue({ ...event, name: 'Terrace party' });
      fireEvent.click(screen.getByRole('button', { name: enEvents['events.edit.submit'] }));
      await waitFor(() => expect(api.updateEvent).toHaveBeenCalledWith(7, { name: 'Terrace party' }));
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives back the saved end, and says so, for an end of a draft that has gone by since the event started', async () => {
    vi.useFakeTimers({ now: new Date(2030, 5, 14, 19, 5), toFake: ['Date'] });
    try {
      const event = organized({ starts_at: new Date(2030, 5, 14, 18).toISOString(), ends_at: new Date(2030, 5, 15, 4).toISOString(), status: 'open' });
      await renderAt(event);
      fireEvent.change(await screen.findByLabelText(endsLabel), { target: { value: '2030-06-14T20:00' } });

      vi.setSystemTime(new Date(2030, 5, 14, 20, 30));
      reload();
      await renderAt(event);
      expect(await screen.findByLabelText(endsLabel)).toHaveProperty('value', '2030-06-15T04:00');
      screen.getByText(enEvents['events.edit.timesPassed']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('offers no form for an event that is over, nor for one that is not mine', async () => {
    await renderAt(organized({ starts_at: new Date(Date.now() - 6 * HOUR).toISOString(), ends_at: new Date(Date.now() - HOUR).toISOString(), status: 'after' }));
    await screen.findByText(enEvents['events.edit.over']);
    expect(screen.queryByRole('button', { name: enEvents['events.edit.submit'] })).toBeNull();
    cleanup();
    api.myEvents.mockResolvedValue({ results: [], next: null });
    const { EditEvent } = await import('../../client/pages/events/EditEvent');
    render(<EditEvent id={8} />);
    await screen.findByText(enEvents['host.notFound']);
  });
});
