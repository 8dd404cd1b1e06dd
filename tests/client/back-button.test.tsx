// @vitest-environment jsdom
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { BackButton } from '../../client/components/AuthLayout';
import { inEnglishPages } from '../helpers/english-pages';

inEnglishPages();

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
