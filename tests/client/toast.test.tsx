// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TOAST_AUTO_CLOSE_MS } from '../../shared/constants';
import { Sheet } from '../../client/components/Sheet';
import { Toaster } from '../../client/components/Toaster';
import { initLanguage } from '../../client/lib/i18n';
import { toast } from '../../client/lib/toast';

/** Puts the page out of sight (a phone put away, another app in front) or back, as the browser tells it. */
function setHidden(hidden: boolean) {
  Object.defineProperty(document, 'hidden', { value: hidden, configurable: true });
  act(() => void document.dispatchEvent(new Event('visibilitychange')));
}

const shown = () => screen.queryByText('Saved.');
const wait = (ms: number) => act(() => void vi.advanceTimersByTime(ms));

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  vi.useFakeTimers();
  render(<Toaster />);
});
afterEach(() => {
  act(() => toast.dismiss());
  cleanup();
  vi.useRealTimers();
  setHidden(false);
  localStorage.clear();
});

describe('a toast', () => {
  it('closes itself after its time', () => {
    act(() => void toast.success('Saved.'));
    wait(TOAST_AUTO_CLOSE_MS - 100);
    expect(shown()).not.toBeNull();
    wait(200);
    expect(shown()).toBeNull();
  });

  it('waits while the page is hidden, and takes up its countdown where it was on coming back', () => {
    act(() => void toast.success('Saved.'));
    wait(1000);
    setHidden(true);
    expect(shown()?.closest('.toast')?.hasAttribute('data-held')).toBe(true);
    wait(10 * TOAST_AUTO_CLOSE_MS);
    expect(shown()).not.toBeNull();

    setHidden(false);
    expect(shown()?.closest('.toast')?.hasAttribute('data-held')).toBe(false);
    wait(TOAST_AUTO_CLOSE_MS - 1000 - 100);
    expect(shown()).not.toBeNull();
    wait(200);
    expect(shown()).toBeNull();
  });

  it('raised while the page is hidden, starts counting only once it is seen', () => {
    setHidden(true);
    act(() => void toast.success('Saved.'));
    wait(2 * TOAST_AUTO_CLOSE_MS);
    expect(shown()).not.toBeNull();
    setHidden(false);
    wait(TOAST_AUTO_CLOSE_MS + 100);
    expect(shown()).toBeNull();
  });

  it('stays while the pointer is on it, even if the page was hidden and shown meanwhile', () => {
    act(() => void toast.success('Saved.'));
    fireEvent.mouseEnter(shown()!.closest('.toast')!);
    setHidden(true);
    setHidden(false);
    wait(2 * TOAST_AUTO_CLOSE_MS);
    expect(shown()).not.toBeNull();
    fireEvent.mouseLeave(shown()!.closest('.toast')!);
    wait(TOAST_AUTO_CLOSE_MS + 100);
    expect(shown()).toBeNull();
  });
});

describe('a sheet opened over the toasts', () => {
  const linked = () => screen.getByText('Te espero fuera.').closest('.toast')!;

  it('puts away a toast that only says something, and keeps one that leads somewhere for after it, with the time it had left', () => {
    act(() => void toast.message('Te espero fuera.', { title: 'Jon', href: '/app/chat/7' }));
    act(() => void toast.success('Saved.'));
    wait(1000);
    const sheet = render(
      <Sheet labelledBy="title" onClose={() => {}}>
        <h2 id="title">Report</h2>
      </Sheet>,
    );
    expect(shown()).toBeNull();
    // Out of sight and of the way of the sheet's title and buttons, not gone.
    expect(linked().hasAttribute('data-aside')).toBe(true);
    wait(10 * TOAST_AUTO_CLOSE_MS);

    sheet.unmount();
    expect(linked().hasAttribute('data-aside')).toBe(false);
    wait(TOAST_AUTO_CLOSE_MS - 1000 - 100);
    expect(screen.queryByText('Te espero fuera.')).not.toBeNull();
    wait(200);
    expect(screen.queryByText('Te espero fuera.')).toBeNull();
  });
});
