// @vitest-environment jsdom
/**
 * Toasts are said by a screen reader: it says only what is added to a live region it already knew, so
 * the regions are in index.html, empty, before any toast (polite for most, assertive for an error), and
 * each toast goes into its own. Where a page has none, the toaster makes them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Toaster } from '../../client/components/Toaster';
import { initLanguage } from '../../client/lib/i18n';
import { toast } from '../../client/lib/toast';

const indexHtml = readFileSync(path.resolve(import.meta.dirname, '../../client/index.html'), 'utf8');

/** index.html's body as the browser has it before the app runs: its toasts' regions among it. */
function pageAsServed() {
  const served = new DOMParser().parseFromString(indexHtml, 'text/html');
  for (const script of served.body.querySelectorAll('script')) script.remove();
  document.body.innerHTML = served.body.innerHTML;
}

const regionsOf = (position: string) => [...document.querySelectorAll(`.toasts-${position} [aria-live]`)];

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
});
afterEach(() => {
  act(() => toast.dismiss());
  cleanup();
  document.body.innerHTML = '';
  localStorage.clear();
});

describe('the toasts’ live regions', () => {
  it('are in index.html, empty, before any toast: polite and assertive, at each place a toast shows', () => {
    pageAsServed();
    for (const position of ['top-right', 'bottom-right']) {
      expect(regionsOf(position).map((region) => [region.getAttribute('aria-live'), region.childNodes.length])).toEqual([
        ['assertive', 0],
        ['polite', 0],
      ]);
    }
  });

  it('take each toast into the region that was there before it, by its kind and its place', () => {
    pageAsServed();
    const [assertive, polite] = regionsOf('top-right');
    const [, bottomPolite] = regionsOf('bottom-right');
    render(<Toaster />, { container: document.getElementById('root')! });

    act(() => void toast.success('Saved.'));
    act(() => void toast.error('Could not send.'));
    act(() => void toast.info('Now sign in.', { position: 'bottom-right' }));
    expect(screen.getByText('Saved.').closest('[aria-live]')).toBe(polite);
    expect(screen.getByText('Could not send.').closest('[aria-live]')).toBe(assertive);
    expect(screen.getByText('Now sign in.').closest('[aria-live]')).toBe(bottomPolite);
    // Not a live region of its own, new with it, which a screen reader may not say.
    expect(screen.getByText('Saved.').closest('[role], [aria-live]')).toBe(polite);
    // The same regions, no others.
    expect(document.querySelectorAll('[aria-live]')).toHaveLength(4);

    act(() => toast.dismiss());
    expect([assertive, polite].map((region) => region!.isConnected && region!.childNodes.length)).toEqual([0, 0]);
  });

  it('are made where the page has none', () => {
    render(<Toaster />);
    act(() => void toast.error('Could not send.'));
    act(() => void toast.message('hola', { title: 'Ana' }));
    expect(screen.getByText('Could not send.').closest('[aria-live]')?.getAttribute('aria-live')).toBe('assertive');
    expect(screen.getByText('hola').closest('[aria-live]')?.getAttribute('aria-live')).toBe('polite');
    expect(screen.getByText('hola').closest('.toasts')?.classList.contains('toasts-top-right')).toBe(true);
  });
});
