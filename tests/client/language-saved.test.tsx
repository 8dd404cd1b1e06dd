// @vitest-environment jsdom
/**
 * The top bar's language switch is kept on the account too (`PUT /api/users/me/language/`), so that the
 * e-mails that follow speak the language the app was switched to. The api is faked.
 */
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { initLanguage, useLanguage } from '../../client/lib/i18n';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';
import { renderAt } from '../helpers/render-at';

const api = vi.hoisted(() => ({ saveLanguage: vi.fn() }));
vi.mock('../../client/lib/api-app', () => ({ api }));

const { AccountControls } = await import('../../client/components/AccountControls');

beforeEach(async () => {
  localStorage.clear();
  await initLanguage();
  useSession.setState({ token: 'token', user: currentUser() });
  api.saveLanguage.mockResolvedValue(null);
});
afterEach(() => {
  cleanup();
  useSession.setState({ token: null, user: undefined });
  vi.resetAllMocks();
});

describe('the top bar’s language switch', () => {
  it('saves a change of language on the account, once, and not a tap on the language in use', async () => {
    renderAt('/app/home/', <AccountControls />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /^ES,/ })));
    expect(api.saveLanguage).not.toHaveBeenCalled();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /^EN,/ })));
    await vi.waitFor(() => expect(useLanguage.getState().language).toBe('en'));
    expect(api.saveLanguage).toHaveBeenCalledExactlyOnceWith('en');
  });

  it('switches all the same when the account cannot be reached', async () => {
    api.saveLanguage.mockRejectedValue(new Error('offline'));
    renderAt('/app/home/', <AccountControls />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /^EN,/ })));
    await vi.waitFor(() => expect(useLanguage.getState().language).toBe('en'));
    expect(localStorage.getItem('language_code')).toBe('en');
  });
});
