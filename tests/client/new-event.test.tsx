// @vitest-environment jsdom
/**
 * Creating an event takes the organizer to its host screen in place of the form: Back then goes to
 * where they came from, not to a blank form that would make the same event twice.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { enEvents } from '../../shared/i18n/en-events';
import { initLanguage } from '../../client/lib/i18n';

const api = vi.hoisted(() => ({ createEvent: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { NewEvent } = await import('../../client/pages/events/NewEvent');

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
});
afterEach(() => {
  cleanup();
  localStorage.clear();
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
});
