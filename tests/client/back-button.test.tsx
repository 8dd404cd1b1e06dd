// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BackButton } from '../../client/components/AuthLayout';
import { initLanguage } from '../../client/lib/i18n';

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('Back button (login and register)', () => {
  it('posts "back" to the embedding window and does nothing else', () => {
    const parent = { postMessage: vi.fn() };
    vi.stubGlobal('parent', parent);
    const standalone = vi.fn();
    render(<BackButton onStandalone={standalone} />);
    const click = new MouseEvent('click', { bubbles: true, cancelable: true });
    fireEvent(screen.getByRole('button', { name: 'Back' }), click);
    expect(parent.postMessage).toHaveBeenCalledExactlyOnceWith('back', '*');
    expect(click.defaultPrevented).toBe(true);
    expect(standalone).not.toHaveBeenCalled();
  });

  it('goes home instead when the page is not embedded', () => {
    const standalone = vi.fn();
    render(<BackButton onStandalone={standalone} />);
    fireEvent.click(screen.getByRole('button', { name: 'Back' }));
    expect(standalone).toHaveBeenCalledOnce();
  });
});
