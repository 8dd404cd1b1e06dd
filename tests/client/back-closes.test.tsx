// @vitest-environment jsdom
/**
 * The back gesture closes a sheet rather than leaving the page under it, and a sheet closed any other
 * way leaves no history entry behind: the page's history is as if no sheet had opened. Real sheets, a
 * real router (wouter's, on the document's own history), jsdom's history with its `popstate`s.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { Route, Router, Switch, useLocation } from 'wouter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Menu } from '../../client/components/Menu';
import { ConfirmSheet } from '../../client/components/Sheet';
import { afterOverlays } from '../../client/lib/back-closes';
import { initLanguage } from '../../client/lib/i18n';

/**
 * A page with a sheet, opened by a button or from a menu: "Go" leads elsewhere from inside it (as a
 * block leaves the chat), "Hold" is busy forever.
 */
function Page() {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [, navigate] = useLocation();
  return (
    <main>
      <h1>Page</h1>
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      <Menu label="More" button="⋯" items={[{ key: 'sheet', label: 'Open from the menu', onSelect: () => setOpen(true) }]} />
      {open && (
        <ConfirmSheet title="Sure?" error={null} busy={busy} confirmLabel="Go" cancelLabel="Cancel" onConfirm={() => navigate('/next/')} onClose={() => setOpen(false)}>
          <button type="button" onClick={() => setBusy(true)}>
            Hold
          </button>
        </ConfirmSheet>
      )}
    </main>
  );
}

function App() {
  return (
    <Router aroundNav={afterOverlays}>
      <Switch>
        <Route path="/page/" component={Page} />
        <Route path="/next/">
          <h1>Next</h1>
        </Route>
      </Switch>
    </Router>
  );
}

/** The browser's Back, and its `popstate` handled. */
async function back() {
  const before = window.history.state as unknown;
  window.history.back();
  await waitFor(() => expect(window.history.state).not.toBe(before));
}

const sheet = () => screen.queryByRole('dialog');
const heading = () => screen.getByRole('heading', { level: 1 }).textContent;
/** The overlay's key in the history's current entry, if it is an overlay's. */
const overlayKey = () => (window.history.state as { overlay?: string } | null)?.overlay;
const marked = () => overlayKey() !== undefined;

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  // Two entries: somewhere before, then the page.
  window.history.replaceState({ at: 'before' }, '', '/before/');
  window.history.pushState({ at: 'page' }, '', '/page/');
  render(<App />);
});
afterEach(async () => {
  cleanup();
  // A sheet still open goes back over its entry as it closes.
  await waitFor(() => expect(marked()).toBe(false));
  localStorage.clear();
});

async function openSheet() {
  fireEvent.click(screen.getByRole('button', { name: 'Open' }));
  await waitFor(() => expect(marked()).toBe(true));
  expect(sheet()).not.toBeNull();
}

describe('a sheet and the back gesture', () => {
  it('Back closes the sheet and stays on the page; the next Back leaves it', async () => {
    await openSheet();
    await back();
    expect(sheet()).toBeNull();
    expect(window.location.pathname).toBe('/page/');
    expect(window.history.state).toEqual({ at: 'page' });
    await back();
    expect(window.location.pathname).toBe('/before/');
  });

  it('Cancel closes it and takes its entry with it: one Back still leaves the page', async () => {
    await openSheet();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(sheet()).toBeNull();
    await waitFor(() => expect(window.history.state).toEqual({ at: 'page' }));
    await back();
    expect(window.location.pathname).toBe('/before/');
  });

  it('a sheet whose action runs stays open on Back, with its entry back on top', async () => {
    await openSheet();
    fireEvent.click(screen.getByRole('button', { name: 'Hold' }));
    await back();
    expect(sheet()).not.toBeNull();
    expect(window.location.pathname).toBe('/page/');
    expect(marked()).toBe(true);
  });

  it('a navigation from inside the sheet goes where it would without the sheet: Back from there is the page, with no sheet', async () => {
    await openSheet();
    fireEvent.click(screen.getByRole('button', { name: 'Go' }));
    await waitFor(() => expect(heading()).toBe('Next'));
    expect(window.location.pathname).toBe('/next/');
    await back();
    expect(heading()).toBe('Page');
    expect(window.history.state).toEqual({ at: 'page' });
    expect(sheet()).toBeNull();
    await back();
    expect(window.location.pathname).toBe('/before/');
  });

  it('leaves the page where it is as a step back over a sheet lands on it; the next page is scrolled as any other', async () => {
    // A browser puts a page's scroll back when Back lands on its entry (jsdom keeps none): over a sheet,
    // Chromium put the report page's back late, on the long queue its Ban led to, opened part-way down.
    window.history.scrollRestoration = 'auto';
    const landing: ScrollRestoration[] = [];
    const realBack = window.history.back.bind(window.history);
    const back = vi.spyOn(window.history, 'back').mockImplementation(() => {
      landing.push(window.history.scrollRestoration);
      realBack();
    });
    try {
      await openSheet();
      fireEvent.click(screen.getByRole('button', { name: 'Go' }));
      await waitFor(() => expect(heading()).toBe('Next'));
      expect(landing).toEqual(['manual']);
      // The page it led to, and the pages after it, as the browser scrolls them.
      expect(window.history.scrollRestoration).toBe('auto');
    } finally {
      back.mockRestore();
    }
  });

  it('a step back that never lands (the page going away) holds a navigation a few seconds, not for good', { timeout: 10_000 }, async () => {
    await openSheet();
    const back = vi.spyOn(window.history, 'back').mockImplementation(() => {});
    try {
      fireEvent.click(screen.getByRole('button', { name: 'Go' }));
      await waitFor(() => expect(back).toHaveBeenCalledOnce());
      expect(heading()).toBe('Page');
      await waitFor(() => expect(heading()).toBe('Next'), { timeout: 5000 });
    } finally {
      back.mockRestore();
    }
  });

  it('a sheet that closes itself while the page is being left makes no step back, which would cancel that navigation', async () => {
    await openSheet();
    // A clock of its own, behind the real one: once it is given back, the page was left long ago.
    const at = performance.now() - 60_000;
    const now = vi.spyOn(performance, 'now').mockReturnValue(at);
    const back = vi.spyOn(window.history, 'back');
    try {
      // An address typed, a reload: the browser asks the page first.
      window.dispatchEvent(new Event('beforeunload'));
      fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
      expect(sheet()).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(back).not.toHaveBeenCalled();
      // The page stayed after all: its entry goes with the next overlay closed.
      now.mockReturnValue(at + 30_000);
      await openSheet();
      fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
      await waitFor(() => expect(window.history.state).toEqual({ at: 'page' }));
      expect(back).toHaveBeenCalledTimes(2);
    } finally {
      now.mockRestore();
      back.mockRestore();
    }
  });

  it('a sheet opened as another closes gets the top entry: Back closes it, and the page stays', async () => {
    await openSheet();
    const first = overlayKey();
    // Closed and opened again in one go: its step back is still on its way when the new one pushes.
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    fireEvent.click(screen.getByRole('button', { name: 'Open' }));
    await waitFor(() => {
      expect(marked()).toBe(true);
      expect(overlayKey()).not.toBe(first);
    });
    expect(sheet()).not.toBeNull();
    await back();
    expect(sheet()).toBeNull();
    expect(window.history.state).toEqual({ at: 'page' });
    expect(window.location.pathname).toBe('/page/');
  });

  it('Back closes an open menu, and the page stays', async () => {
    fireEvent.click(screen.getByRole('button', { name: 'More' }));
    await waitFor(() => expect(marked()).toBe(true));
    expect(screen.queryByRole('menu')).not.toBeNull();
    await back();
    expect(screen.queryByRole('menu')).toBeNull();
    expect(window.history.state).toEqual({ at: 'page' });
  });

  it("a menu item that opens a sheet: the menu's entry goes, the sheet's is on top, and Back closes the sheet", async () => {
    fireEvent.click(screen.getByRole('button', { name: 'More' }));
    await waitFor(() => expect(marked()).toBe(true));
    const menus = overlayKey();
    fireEvent.click(screen.getByRole('menuitem', { name: 'Open from the menu' }));
    expect(sheet()).not.toBeNull();
    await waitFor(() => {
      expect(marked()).toBe(true);
      expect(overlayKey()).not.toBe(menus);
    });
    await back();
    expect(sheet()).toBeNull();
    expect(window.history.state).toEqual({ at: 'page' });
    expect(window.location.pathname).toBe('/page/');
  });
});
