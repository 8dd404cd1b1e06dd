// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useChat } from '../../client/stores/chat';
import { useSession } from '../../client/stores/session';

describe('chat drafts (what is typed and not sent)', () => {
  it('keeps one per conversation, and forgets one emptied', () => {
    const { setDraft } = useChat.getState();
    setDraft(1, 'see you at the bar');
    setDraft(2, 'hola');
    setDraft(2, '');
    expect(useChat.getState().drafts).toEqual({ 1: 'see you at the bar' });
  });

  it('drops the draft of a conversation that ended, and every draft at sign-out', () => {
    const { setDraft, end } = useChat.getState();
    setDraft(1, 'see you at the bar');
    setDraft(3, 'which room?');
    end(1, { byMe: false, userId: 2, name: 'Ben' });
    expect(useChat.getState().drafts).toEqual({ 3: 'which room?' });

    useSession.getState().signOut({ alreadyRevoked: true });
    expect(useChat.getState().drafts).toEqual({});
  });
});

describe('chat drafts kept on the device (a reload, a phone dropping the tab)', () => {
  const ME = 1;
  const KEY = `chat_drafts:${ME}`;
  const kept = () => JSON.parse(localStorage.getItem(KEY) ?? 'null') as Array<[number, string]> | null;
  /** The app opened again on this device, as this user: a fresh tab's store, what storage holds. */
  const reopen = () => {
    useSession.setState({ user: undefined });
    useChat.setState({ drafts: {} });
    useSession.setState({ user: { id: ME } as never });
  };

  beforeEach(() => {
    vi.useFakeTimers();
    useSession.getState().signIn('token');
    useSession.setState({ user: { id: ME } as never });
  });
  afterEach(() => {
    useSession.getState().signOut({ alreadyRevoked: true });
    vi.useRealTimers();
  });

  it('writes a draft once the typing pauses, not at every keystroke, and restores it when the app opens again', () => {
    const writes = vi.spyOn(Storage.prototype, 'setItem');
    const draftWrites = () => writes.mock.calls.filter(([key]) => key === KEY).length;
    const { setDraft } = useChat.getState();
    for (const text of ['s', 'se', 'see', 'see you', 'see you at', 'see you at the bar']) {
      setDraft(7, text);
      vi.advanceTimersByTime(300);
    }
    expect(kept()).toBeNull();
    vi.advanceTimersByTime(300);
    expect(kept()).toEqual([[7, 'see you at the bar']]);
    expect(draftWrites()).toBe(1);
    writes.mockRestore();

    reopen();
    expect(useChat.getState().drafts).toEqual({ 7: 'see you at the bar' });
  });

  it('writes at once when the page is put away', () => {
    useChat.getState().setDraft(7, 'half a thought');
    window.dispatchEvent(new Event('pagehide'));
    expect(kept()).toEqual([[7, 'half a thought']]);
  });

  it('forgets a draft at once when it is sent (emptied) or its conversation ends', () => {
    const { setDraft, end } = useChat.getState();
    setDraft(7, 'see you at the bar');
    setDraft(8, 'which room?');
    vi.advanceTimersByTime(1000);
    expect(kept()).toEqual([
      [7, 'see you at the bar'],
      [8, 'which room?'],
    ]);
    // Sent: the composer empties it, and no timer has to run before a reload for it to be gone.
    setDraft(7, '');
    expect(kept()).toEqual([[8, 'which room?']]);
    end(8, { byMe: false, userId: 2, name: 'Ben' });
    expect(localStorage.getItem(KEY)).toBeNull();
    reopen();
    expect(useChat.getState().drafts).toEqual({});
  });

  it('keeps the drafts last edited only, a few', () => {
    for (let id = 1; id <= 25; id += 1) useChat.getState().setDraft(id, `draft ${id}`);
    useChat.getState().setDraft(3, 'draft 3 again');
    vi.advanceTimersByTime(1000);
    const ids = kept()!.map(([id]) => id);
    expect(ids).toHaveLength(20);
    expect(ids.at(-1)).toBe(3);
    expect(ids).not.toContain(1);
    expect(ids).toContain(25);
  });

  it("leaves another tab's drafts of the same session as they are", () => {
    useChat.getState().setDraft(7, 'mine');
    vi.advanceTimersByTime(1000);
    // Another tab of this session keeps its own meanwhile.
    localStorage.setItem(KEY, JSON.stringify([...kept()!, [9, 'from the other tab']]));
    useChat.getState().setDraft(7, 'mine, longer');
    vi.advanceTimersByTime(1000);
    expect(kept()).toEqual([
      [9, 'from the other tab'],
      [7, 'mine, longer'],
    ]);
  });

  it('drops the drafts at sign-out, and a draft typed just before is not written after it', () => {
    useChat.getState().setDraft(7, 'kept');
    vi.advanceTimersByTime(1000);
    expect(kept()).toEqual([[7, 'kept']]);
    useChat.getState().setDraft(8, 'typed just before');
    useSession.getState().signOut({ alreadyRevoked: true });
    expect(localStorage.getItem(KEY)).toBeNull();
    // Signed in again as the same user: nothing of the last session comes back, nor gets written.
    useSession.getState().signIn('token-2');
    useSession.setState({ user: { id: ME } as never });
    vi.advanceTimersByTime(1000);
    expect(localStorage.getItem(KEY)).toBeNull();
    expect(useChat.getState().drafts).toEqual({});
  });

  it('keeps them through a session the server ended, for the same user signing in again only', () => {
    useChat.getState().setDraft(7, 'see you at the bar');
    vi.advanceTimersByTime(1000);
    // Ended from another device (its password changed there), as its unsent messages are kept.
    useSession.getState().signOut({ alreadyRevoked: true, keepOutbox: true });
    useSession.getState().signIn('token-2');
    useSession.setState({ user: { id: ME } as never });
    expect(useChat.getState().drafts).toEqual({ 7: 'see you at the bar' });

    useSession.getState().signOut({ alreadyRevoked: true, keepOutbox: true });
    useSession.getState().signIn('token-3');
    useSession.setState({ user: { id: 2 } as never });
    expect(useChat.getState().drafts).toEqual({});
    expect(Object.keys(localStorage).filter((key) => key.startsWith('chat_drafts'))).toEqual([]);
  });

  it('is not written by a tab left signed in after another signed in as someone else', () => {
    // Another tab signed in: local storage was cleared and holds its token now.
    localStorage.clear();
    localStorage.setItem('auth_token', 'someone-else');
    useChat.getState().setDraft(7, 'not for their storage');
    vi.advanceTimersByTime(1000);
    window.dispatchEvent(new Event('pagehide'));
    expect(Object.keys(localStorage).filter((key) => key.startsWith('chat_drafts'))).toEqual([]);
    // Nor does it read what that session keeps there.
    localStorage.setItem(KEY, JSON.stringify([[9, 'theirs']]));
    reopen();
    expect(useChat.getState().drafts).toEqual({});
  });
});
