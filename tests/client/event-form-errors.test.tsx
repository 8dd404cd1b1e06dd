// @vitest-environment jsdom
/**
 * A refused event form's field errors go as the organizer changes those fields, as the profile's do
 * (EditProfile): "cannot be empty" under a name being typed is wrong. The errors of the fields left
 * as they were stay.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enEvents } from '../../shared/i18n/en-events';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';
import { ValidationError } from '../../client/lib/api';
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { eventsMessages } from '../../client/lib/messages-events';
import { EventForm } from '../../client/pages/events/EventForm';

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
});
afterEach(() => {
  cleanup();
  localStorage.clear();
});

const initial = { name: '', venue: '', starts_at: '2030-06-14T22:00', ends_at: '2030-06-15T04:00', join_mode: 'code' } as const;

/** The form, whose saves the server refuses with `fields`. */
function Form({ fields }: { fields: Record<string, string[]> }) {
  useMessages(eventsMessages);
  return (
    <EventForm
      initial={initial}
      draft="event-form"
      submitLabel="Save"
      onSubmit={async () => {
        throw new ValidationError(fields);
      }}
    />
  );
}

const field = (label: string) => screen.getByLabelText<HTMLInputElement>(label);

describe('a refused event form', () => {
  it('clears a field’s error once that field is changed, and keeps the others’', async () => {
    render(<Form fields={{ name: [SERVER_MESSAGES.blank.en], venue: [SERVER_MESSAGES.max_length.en.replace('{max}', '120')], ends_at: [SERVER_MESSAGES.blank.en] }} />);
    await act(async () => fireEvent.submit(await screen.findByRole('button', { name: 'Save' })));
    expect(field(enEvents['events.new.name']).getAttribute('aria-invalid')).toBe('true');

    fireEvent.change(field(enEvents['events.new.name']), { target: { value: 'F' } });
    expect(field(enEvents['events.new.name']).getAttribute('aria-invalid')).toBe('false');
    expect(document.getElementById('name-error')).toBeNull();
    expect(field(enEvents['events.new.venue']).getAttribute('aria-invalid')).toBe('true');

    fireEvent.change(field(enEvents['events.new.venue']), { target: { value: 'Sala' } });
    expect(document.getElementById('venue-error')).toBeNull();

    const ends = screen.getByLabelText<HTMLInputElement>(new RegExp(`^${enEvents['events.new.ends']}`));
    expect(ends.getAttribute('aria-invalid')).toBe('true');
    fireEvent.change(ends, { target: { value: '2030-06-15T05:00' } });
    expect(ends.getAttribute('aria-invalid')).toBe('false');
  });

  it('clears the end’s error when a new start moves the end', async () => {
    render(<Form fields={{ ends_at: [SERVER_MESSAGES.blank.en] }} />);
    await act(async () => fireEvent.submit(await screen.findByRole('button', { name: 'Save' })));
    const ends = screen.getByLabelText<HTMLInputElement>(new RegExp(`^${enEvents['events.new.ends']}`));
    expect(ends.getAttribute('aria-invalid')).toBe('true');

    fireEvent.change(field(enEvents['events.new.starts']), { target: { value: '2030-06-14T23:00' } });
    expect(ends.value).toBe('2030-06-15T05:00');
    expect(ends.getAttribute('aria-invalid')).toBe('false');
    expect(document.getElementById('ends-error')).toBeNull();
  });
});
