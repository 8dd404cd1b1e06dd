// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
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
    end(1, false, 'Ben');
    expect(useChat.getState().drafts).toEqual({ 3: 'which room?' });

    useSession.getState().signOut({ alreadyRevoked: true });
    expect(useChat.getState().drafts).toEqual({});
  });
});
