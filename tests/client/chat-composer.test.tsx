// @vitest-environment jsdom
/**
 * The chat's text as people write it: a message in a right-to-left script reads right to left (in the
 * chat, its composer and the list’s previews), a paste longer than a message may be says it was cut,
 * a message held by the server's limit on sends says why, with no Retry to jump the queue, one refused
 * for good offers no Retry either but goes back to the composer, and Return writes a new line on a
 * touch screen, where Enter sends from a hardware keyboard.
 */
import { act, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MESSAGE_MAX_LENGTH } from '../../shared/constants';
import { en } from '../../shared/i18n/en';
import type { ConversationSummary } from '../../shared/schemas/conversations';
import '../../client/lib/messages-app';
import { Chat } from '../../client/pages/app/Chat';
import { Matches } from '../../client/pages/app/Matches';
import { emptyThread, useChat } from '../../client/stores/chat';
import { useConversations } from '../../client/stores/conversations';
import { chatPageWorld } from '../helpers/chat-page';
import { renderAt } from '../helpers/render-at';
import { pasteAsBrowser } from '../helpers/paste';

const ME = 1;
const BEN = 2;
const ARABIC = 'مرحبا، أين أنت؟';
const summary: ConversationSummary = {
  id: 7,
  name: 'Ben',
  image: null,
  other_user_id: BEN,
  last_message: ARABIC,
  last_activity: '2026-11-28T01:00:00.000Z',
  unread_count: 0,
};

const detail = { id: 7, name: 'Ben', image: null, other_user_id: BEN, partner_last_read_id: 0 };

/** The server's answers: the lists hold Ben's conversation, and nothing newer is in it. */
const answer = (url: string) => {
  if (url.includes('/api/conversations/started/')) return { results: [summary], next: null, previous: null };
  if (new URL(url, 'http://localhost').pathname === '/api/conversations/7/') return detail;
  return { results: [], next: null, previous: null };
};

chatPageWorld(ME, answer);

beforeEach(() => {
  useChat.setState({
    threads: {
      7: {
        ...emptyThread(),
        loaded: true,
        detail,
        messages: [{ id: 1, sender: BEN, content: ARABIC, time: '2026-11-28T01:00:00.000Z', client_id: null, status: 'sent' }],
      },
    },
  });
});
describe('text that reads right to left', () => {
  it('sets each message and the composer to follow the direction of what they hold', async () => {
    renderAt('/app/', <Chat id={7} />);
    const content = (await screen.findByText(ARABIC)).closest('.message-content');
    expect(content?.getAttribute('dir')).toBe('auto');
    expect(screen.getByRole('textbox', { name: en['chat.placeholder'] }).getAttribute('dir')).toBe('auto');
  });

  it('sets a link in a message to its own direction: an address in an Arabic message keeps its slashes in place', async () => {
    const content = `${ARABIC} https://example.com/fiesta/`;
    useChat.setState((state) => ({ threads: { 7: { ...state.threads[7]!, messages: [{ ...state.threads[7]!.messages[0]!, content }] } } }));
    renderAt('/app/', <Chat id={7} />);
    expect((await screen.findByRole('link', { name: 'https://example.com/fiesta/' })).getAttribute('dir')).toBe('auto');
  });

  it('says who wrote each message to a screen reader, which sees no side or colour', async () => {
    useChat.setState((state) => ({
      threads: {
        7: {
          ...state.threads[7]!,
          messages: [...state.threads[7]!.messages, { id: 2, sender: ME, content: 'hi Ben', time: '2026-11-28T01:01:00.000Z', client_id: null, status: 'sent' }],
        },
      },
    }));
    renderAt('/app/', <Chat id={7} />);
    await screen.findByText('hi Ben');
    const said = screen.getAllByTestId('message').map((item) => item.querySelector('.sr-only')?.textContent);
    expect(said).toEqual(['Ben: ', `${en['chat.you']}: `]);
  });

  it('sets the list’s last message and draft previews to follow their own direction', async () => {
    useChat.getState().setDraft(7, 'שלום');
    renderAt('/app/', <Matches />);
    expect((await screen.findByText('שלום')).getAttribute('dir')).toBe('auto');
    act(() => useChat.getState().setDraft(7, ''));
    expect((await screen.findByText(ARABIC)).getAttribute('dir')).toBe('auto');
  });
});

describe('the list’s last message', () => {
  it('says “You:” before the reader’s own, as it comes, and not before the partner’s', async () => {
    renderAt('/app/', <Matches />);
    const last = await screen.findByText(ARABIC);
    expect(last.parentElement!.textContent).toBe(ARABIC);

    act(() => useConversations.getState().noteMessage(7, { id: 2, sender: ME, content: 'On my way', time: '2026-11-28T01:01:00.000Z', client_id: null }, true));
    expect((await screen.findByText('On my way')).parentElement!.textContent).toBe('You: On my way');
    act(() => useConversations.getState().noteMessage(7, { id: 3, sender: BEN, content: 'Great', time: '2026-11-28T01:02:00.000Z', client_id: null }, false));
    expect((await screen.findByText('Great')).parentElement!.textContent).toBe('Great');
  });
});

describe('a paste longer than a message may be', () => {
  const cutNotice = 'Only the first 2,000 characters fit.';

  it('says that only the first 2,000 characters fit, until the draft is shortened', async () => {
    renderAt('/app/', <Chat id={7} />);
    const composer = (await screen.findByRole('textbox', { name: en['chat.placeholder'] })) as HTMLTextAreaElement;
    expect(composer.maxLength).toBe(MESSAGE_MAX_LENGTH);
    pasteAsBrowser(composer, 'a'.repeat(1500));
    expect(screen.queryByText(cutNotice)).toBeNull();

    pasteAsBrowser(composer, 'b'.repeat(800));
    expect(composer.value).toHaveLength(MESSAGE_MAX_LENGTH);
    expect(screen.getByRole('status').textContent).toBe(cutNotice);

    fireEvent.change(composer, { target: { value: composer.value.slice(0, 1990) } });
    expect(screen.queryByText(cutNotice)).toBeNull();
  });

  it('says nothing of a paste that fits exactly', async () => {
    renderAt('/app/', <Chat id={7} />);
    const composer = (await screen.findByRole('textbox', { name: en['chat.placeholder'] })) as HTMLTextAreaElement;
    pasteAsBrowser(composer, 'a'.repeat(MESSAGE_MAX_LENGTH));
    expect(composer.value).toHaveLength(MESSAGE_MAX_LENGTH);
    expect(screen.queryByText(cutNotice)).toBeNull();
  });
  it('counts an emoji as one character, as the server does: a paste of them fills the message to 2,000', async () => {
    renderAt('/app/', <Chat id={7} />);
    const composer = (await screen.findByRole('textbox', { name: en['chat.placeholder'] })) as HTMLTextAreaElement;
    pasteAsBrowser(composer, 'a'.repeat(1500));
    // 800 emoji, 1,600 UTF-16 units: the first 500 fit.
    pasteAsBrowser(composer, '😀'.repeat(800));
    expect(composer.value).toBe('a'.repeat(1500) + '😀'.repeat(500));
    expect(screen.getByRole('status').textContent).toBe(cutNotice);
    expect(screen.getByText(`${MESSAGE_MAX_LENGTH.toLocaleString('en')}/${MESSAGE_MAX_LENGTH.toLocaleString('en')}`)).toBeTruthy();
    // Full: the field takes nothing more, an emoji or a letter.
    expect(composer.maxLength).toBe(composer.value.length);
    // One emoji taken out: room for one more character (one UTF-16 unit, a letter) and no more.
    fireEvent.change(composer, { target: { value: composer.value.slice(0, -2) } });
    expect(composer.maxLength - composer.value.length).toBe(1);
    expect(screen.queryByText(cutNotice)).toBeNull();
  });
});

describe('a message held by the server’s limit on sends', () => {
  const hold = (slowDown: 'typed' | 'queue') =>
    useChat.setState((state) => ({
      threads: {
        7: {
          ...state.threads[7]!,
          messages: [
            ...state.threads[7]!.messages,
            { id: -1, sender: ME, content: 'too fast', time: '2026-11-28T01:01:00.000Z', client_id: 'c1', status: 'queued', slowDown },
            { id: -2, sender: ME, content: 'and again', time: '2026-11-28T01:01:01.000Z', client_id: 'c2', status: 'queued', slowDown },
          ],
        },
      },
    }));

  it('says to slow down once for a burst, that it goes by itself, with no Retry', async () => {
    hold('typed');
    renderAt('/app/', <Chat id={7} />);
    // The reason is said once, under the newest held bubble; the one before it only waits its turn.
    const newest = (await screen.findByText('and again')).closest('.message')!;
    expect(newest.textContent).toContain(en['chat.slowDown']);
    const earlier = screen.getByText('too fast').closest('.message')!;
    expect(earlier.textContent).toContain(en['chat.held']);
    expect(earlier.textContent).not.toContain(en['chat.slowDown']);
    expect(screen.getAllByText(new RegExp(en['chat.slowDown'].slice(0, 9)))).toHaveLength(1);
    expect(screen.queryByText(new RegExp(en['chat.queued']))).toBeNull();
    expect(screen.queryByRole('button', { name: en['chat.retry'] })).toBeNull();
  });

  it('does not blame the user for the app’s resend of an offline queue: each says it goes in a moment', async () => {
    hold('queue');
    renderAt('/app/', <Chat id={7} />);
    for (const content of ['too fast', 'and again']) {
      const bubble = (await screen.findByText(content)).closest('.message')!;
      expect(bubble.textContent).toContain(en['chat.held']);
      expect(bubble.textContent).not.toContain(en['chat.sending']);
    }
    expect(screen.queryByText(new RegExp(en['chat.slowDown'].slice(0, 9)))).toBeNull();
  });
});

describe('a message the server refused', () => {
  const failed = (content: string, retryable: boolean) => ({
    id: -1,
    sender: ME,
    content,
    time: '2026-11-28T01:01:00.000Z',
    client_id: `c-${content}`,
    status: 'failed' as const,
    retryable,
  });
  const withMessage = (message: ReturnType<typeof failed>) =>
    useChat.setState((state) => ({ threads: { 7: { ...state.threads[7]!, messages: [...state.threads[7]!.messages, message] } } }));

  it('offers Retry when the refusal may pass', async () => {
    withMessage(failed('server hiccup', true));
    renderAt('/app/', <Chat id={7} />);
    const bubble = (await screen.findByText('server hiccup')).closest('.message')!;
    expect(bubble.textContent).toContain(en['chat.failed']);
    expect(screen.getByRole('button', { name: en['chat.retry'] })).toBeTruthy();
    expect(screen.queryByRole('button', { name: en['chat.edit'] })).toBeNull();
  });

  it('offers no Retry for a refusal for good, but takes the text back to the composer, before what is written there', async () => {
    withMessage(failed('refused for good', false));
    renderAt('/app/', <Chat id={7} />);
    const bubble = (await screen.findByText('refused for good')).closest('.message')!;
    expect(bubble.textContent).toContain(en['chat.failed']);
    expect(screen.queryByRole('button', { name: en['chat.retry'] })).toBeNull();
    const composer = screen.getByRole('textbox', { name: en['chat.placeholder'] }) as HTMLTextAreaElement;
    fireEvent.change(composer, { target: { value: 'and more' } });
    fireEvent.click(screen.getByRole('button', { name: en['chat.edit'] }));
    expect(composer.value).toBe('refused for good\nand more');
    expect(document.activeElement).toBe(composer);
    expect(screen.queryByText('refused for good')).toBeNull();
    // Kept as a draft is: through a reload.
    expect(useChat.getState().drafts[7]).toBe('refused for good\nand more');
  });
});

describe('Return in the composer', () => {
  /** A device whose primary pointer is a finger (a phone) or not (a mouse or touchpad, with a keyboard). */
  const pointer = (coarse: boolean) => vi.stubGlobal('matchMedia', (query: string) => ({ matches: coarse && query === '(pointer: coarse)', media: query }));
  const storeSend = useChat.getState().send;
  afterEach(() => useChat.setState({ send: storeSend }));
  async function composer() {
    const send = vi.fn(async () => {});
    useChat.setState({ send });
    renderAt('/app/', <Chat id={7} />);
    const box = (await screen.findByRole('textbox', { name: en['chat.placeholder'] })) as HTMLTextAreaElement;
    fireEvent.change(box, { target: { value: 'first line' } });
    return { box, send };
  }

  it('starts a new line on a touch screen, whose keyboard has no Shift: the send button sends', async () => {
    pointer(true);
    const { box, send } = await composer();
    expect(box.getAttribute('enterkeyhint')).toBe('enter');
    // Not prevented: the browser writes the line break.
    expect(fireEvent.keyDown(box, { key: 'Enter' })).toBe(true);
    expect(send).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: en['chat.send'] }));
    expect(send).toHaveBeenCalledWith(7, 'first line');
  });

  it('keeps the focus in the composer when Send is pressed from the keyboard, not on the button it disables', async () => {
    pointer(true);
    const { box, send } = await composer();
    const button = screen.getByRole('button', { name: en['chat.send'] });
    button.focus();
    // Enter or Space on a focused button: a click with no pointer (detail 0).
    fireEvent.click(button, { detail: 0 });
    expect(send).toHaveBeenCalledWith(7, 'first line');
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(document.activeElement).toBe(box);
  });

  it('sends with a hardware keyboard, where Shift+Enter starts a new line', async () => {
    pointer(false);
    const { box, send } = await composer();
    expect(box.getAttribute('enterkeyhint')).toBe('send');
    expect(fireEvent.keyDown(box, { key: 'Enter', shiftKey: true })).toBe(true);
    expect(send).not.toHaveBeenCalled();
    expect(fireEvent.keyDown(box, { key: 'Enter' })).toBe(false);
    expect(send).toHaveBeenCalledWith(7, 'first line');
  });
});
