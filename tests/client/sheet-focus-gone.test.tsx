// @vitest-environment jsdom
/**
 * A sheet gives the focus back to what opened it; when what it did took that away (leaving the event
 * takes the "Leave the event" card, unblocking a person their row), the focus goes to the page's
 * heading, not to <body>, where a phone's screen reader starts the page over from the top. While open, Tab keeps
 * the focus inside it.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfirmSheet, Sheet } from '../../client/components/Sheet';

function Page() {
  const [open, setOpen] = useState(false);
  const [left, setLeft] = useState(false);
  return (
    <main>
      <h1>Events</h1>
      {!left && (
        <button type="button" onClick={() => setOpen(true)}>
          Leave the event
        </button>
      )}
      {open && (
        <ConfirmSheet
          title="Leave?"
          confirmLabel="Leave"
          busy={false}
          error={null}
          onConfirm={() => {
            setLeft(true);
            setOpen(false);
          }}
          onClose={() => setOpen(false)}
        >
          <p>You can come back with the code.</p>
        </ConfirmSheet>
      )}
    </main>
  );
}

afterEach(cleanup);

describe('the focus as a sheet closes', () => {
  it('goes back to what opened it, when that is still there', () => {
    render(<Page />);
    const opener = screen.getByRole('button', { name: 'Leave the event' });
    opener.focus();
    fireEvent.click(opener);
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    expect(document.activeElement).toBe(opener);
  });

  it("goes to the page's heading when what opened it is gone", () => {
    render(<Page />);
    const opener = screen.getByRole('button', { name: 'Leave the event' });
    opener.focus();
    fireEvent.click(opener);
    act(() => fireEvent.click(screen.getByRole('button', { name: 'Leave' })));
    expect(screen.queryByRole('button', { name: 'Leave the event' })).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Events' }));
  });
});

describe('Tab in a sheet', () => {
  it('stays in it on Shift+Tab from a radio checked below the first of its group, the sheet\'s first stop', () => {
    render(
      <Sheet labelledBy="why" onClose={() => {}}>
        <fieldset>
          <legend id="why">Why?</legend>
          {['spam', 'fake', 'other'].map((value) => (
            <label key={value}>
              <input type="radio" name="reason" value={value} defaultChecked={value === 'fake'} />
              {value}
            </label>
          ))}
        </fieldset>
        <textarea aria-label="Details" />
      </Sheet>,
    );
    const checked = screen.getByRole('radio', { name: 'fake' });
    checked.focus();
    // The group is one stop: the browser's Shift+Tab from its checked radio leaves for what is before the group, the page.
    fireEvent.keyDown(checked, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Details' }));
  });
});
