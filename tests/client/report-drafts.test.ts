// @vitest-environment jsdom
/** A report being written is kept on the device until it is sent: a reload does not lose it, a sign-out does. */
import { describe, expect, it, vi } from 'vitest';

const loadStores = async () => {
  vi.resetModules();
  const { useSafety } = await import('../../client/stores/safety');
  const { useSession } = await import('../../client/stores/session');
  return { useSafety, useSession };
};

describe('a report being written', () => {
  it('is there again after the page is loaded again, and gone after a sign-out', async () => {
    const before = await loadStores();
    before.useSession.getState().signIn('token');
    before.useSafety.setState({ reportDrafts: { 7: { reason: 'fake_profile', details: 'Las fotos son de una modelo.' } } });

    // The page is loaded again: new stores, from what the device kept.
    const after = await loadStores();
    expect(after.useSafety.getState().reportDrafts).toEqual({ 7: { reason: 'fake_profile', details: 'Las fotos son de una modelo.' } });

    after.useSession.getState().signOut({ alreadyRevoked: true });
    expect((await loadStores()).useSafety.getState().reportDrafts).toEqual({});
  });

  it('is not written by a tab left signed in after another signed in as someone else', async () => {
    const stores = await loadStores();
    stores.useSession.getState().signIn('token');
    // Another tab signed in: local storage was cleared and holds its token now.
    localStorage.clear();
    localStorage.setItem('auth_token', 'someone-else');
    stores.useSafety.setState({ reportDrafts: { 7: { reason: 'harassment', details: 'Not for their eyes.' } } });
    expect(localStorage.getItem('cache:reportDrafts')).toBeNull();

    // Nor does it write over the report that session is writing, once its own is sent.
    const theirs = JSON.stringify({ version: 2, value: { 9: { reason: 'spam', details: 'Theirs.' } } });
    localStorage.setItem('cache:reportDrafts', theirs);
    stores.useSafety.setState({ reportDrafts: {} });
    expect(localStorage.getItem('cache:reportDrafts')).toBe(theirs);
  });
});
