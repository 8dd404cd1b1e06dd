// @vitest-environment jsdom
/**
 * The safety dialogs, the blocked list and match:removed, rendered in jsdom against the real server:
 * the client's relative `/api/...` requests are sent to a started app, and what they did is read back
 * from it (blocks, reports in the moderation queue, ended conversations).
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ReactElement } from 'react';
import { eq } from 'drizzle-orm';
import { Route, Router, Switch } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { REPORT_DETAILS_MAX_LENGTH, REPORT_REASONS } from '../../shared/constants';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { format } from '../../shared/i18n/format';
import type { ProfileInput } from '../../shared/schemas/users';
import { blocks, reports, users } from '../../server/db/schema';
import { SafetyDialog, type SafetyAction } from '../../client/components/SafetyDialog';
import { SafetyMenu } from '../../client/components/SafetyMenu';
import { AppShell } from '../../client/components/AppShell';
import { afterOverlays } from '../../client/lib/back-closes';
import { initLanguage, useLanguage } from '../../client/lib/i18n';
import '../../client/lib/messages-app';
import { setToken } from '../../client/lib/storage';
import { Blocked } from '../../client/pages/app/Blocked';
import { EndedChats } from '../../client/pages/app/EndedChats';
import { Chat } from '../../client/pages/app/Chat';
import { Matches } from '../../client/pages/app/Matches';
import { ProfileView } from '../../client/pages/app/ProfileView';
import { Moderation } from '../../client/pages/app/moderation/Moderation';
import { useConnection } from '../../client/lib/socket';
import { toast, useToasts } from '../../client/lib/toast';
import { chatToastKey, useChat } from '../../client/stores/chat';
import { useConversations } from '../../client/stores/conversations';
import { useDeck } from '../../client/stores/deck';
import { useLikes } from '../../client/stores/likes';
import { conversationEnded, personGone, useSafety } from '../../client/stores/safety';
import { useSession } from '../../client/stores/session';
import { makeCompletedUser, makeUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { banThroughModeration, makeModerator } from '../helpers/safety';
import { unban } from '../../server/features/moderation/service';
import { comeBack } from '../helpers/page-visibility';
import { serverPerSuite } from '../helpers/server';

const realFetch = globalThis.fetch;
const woman: Partial<ProfileInput> = { gender: 'female', genders_to_match: ['male'] };
const man: Partial<ProfileInput> = { gender: 'male', genders_to_match: ['female'] };

// Two reports a day here, so that the third shows the 429 copy.
const server = serverPerSuite({ config: { limits: { report: { max: 2, windowMs: 86_400_000 }, block: { max: 3, windowMs: 3_600_000 } } } });
let moderator: TestUser;
const api = () => client(server.url);

beforeAll(async () => {
  moderator = await makeModerator(server);
});

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  // The client asks for `/api/...` on its own origin: here that origin is the test server.
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => realFetch(new URL(String(input), server.url), init));
  // jsdom lays nothing out, so it has no ResizeObserver: the chat's, that keeps its newest message in view, watches nothing here.
  vi.stubGlobal('ResizeObserver', class { observe() {} disconnect() {} });
});
afterEach(() => {
  cleanup();
  useSession.getState().signOut();
  vi.unstubAllGlobals();
  localStorage.clear();
});

/** Two matched people with a message each way; the first is signed in to the client. */
async function matchedPair(names: [string, string] = ['Ana', 'Ben']) {
  const me = await makeCompletedUser(server, { name: names[0], ...woman }, { firstName: names[0] });
  const other = await makeCompletedUser(server, { name: names[1], ...man }, { firstName: names[1] });
  await api().post('/api/matching/', { token: other.token, json: { response: 'like', other: me.id } });
  const matched = await api().post('/api/matching/', { token: me.token, json: { response: 'like', other: other.id } });
  const conversationId = matched.body.conversation_id as number;
  await api().post(`/api/conversations/${conversationId}/messages/`, { token: other.token, json: { content: 'hello there' } });
  setToken(me.token);
  useSession.setState({
    token: me.token,
    user: { id: me.id, email: me.email, first_name: names[0], last_name: 'Tester', image: null, is_profile_completed: true, has_subscription: false, email_verified: true, has_password: true, is_moderator: false, language: 'es' },
  });
  await useConversations.getState().load();
  return { me, other, conversationId };
}

/** A page open at `path` (routed by `pattern`, whose `:id` it takes), and the list it leaves for: the addresses it went through. */
function renderLeavingForList(path: string, pattern: string, page: (id: number) => ReactElement) {
  const { hook, history } = memoryLocation({ path, record: true });
  render(
    <Router hook={hook}>
      <Switch>
        <Route path={pattern}>{(params: { id?: string }) => page(Number(params.id))}</Route>
        <Route path="/app/matches/" component={Matches} />
      </Switch>
    </Router>,
  );
  return history;
}

/** The chat open, and the list it leaves for. */
const renderChat = (conversationId: number) => renderLeavingForList(`/app/chat/${conversationId}`, '/app/chat/:id', (id) => <Chat id={id} />);

function renderDialog(action: SafetyAction, person: { id: number; name: string }, conversationId?: number) {
  const onClose = vi.fn();
  const onDone = vi.fn();
  render(<SafetyDialog action={action} person={person} conversationId={conversationId} onClose={onClose} onDone={onDone} />);
  return { onClose, onDone };
}

const openReports = async () =>
  (await api().get('/api/moderation/reports/?status=open', { token: moderator.token })).body.results as Array<{
    id: number;
    reason: string;
    details: string;
    reporter: { id: number };
    reported: { id: number };
  }>;

describe('Block', () => {
  it('says what happens, starts on Cancel, and Escape closes without blocking', async () => {
    const { me, other, conversationId } = await matchedPair();
    const { onClose, onDone } = renderDialog('block', { id: other.id, name: 'Ben' }, conversationId);
    const dialog = screen.getByRole('dialog', { name: 'Block Ben?' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(dialog.textContent).toContain(en['safety.block.text']);
    expect(document.activeElement?.textContent).toBe(en['safety.cancel']);

    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(onClose).toHaveBeenCalledOnce();
    expect(onDone).not.toHaveBeenCalled();
    expect((await api().get('/api/users/me/blocks/', { token: me.token })).body.results).toEqual([]);
  });

  it('keeps Tab inside the dialog', async () => {
    const { other, conversationId } = await matchedPair();
    renderDialog('block', { id: other.id, name: 'Ben' }, conversationId);
    const confirm = screen.getByRole('button', { name: en['safety.block.confirm'] });
    const cancel = screen.getByRole('button', { name: en['safety.cancel'] });
    cancel.focus();
    fireEvent.keyDown(cancel, { key: 'Tab' });
    expect(document.activeElement).toBe(confirm);
    fireEvent.keyDown(confirm, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(cancel);
  });

  it('blocks on the server, and the conversation leaves the lists and the chat store', async () => {
    const { me, other, conversationId } = await matchedPair();
    await useChat.getState().open(conversationId);
    expect(useConversations.getState().started?.map((item) => item.id)).toEqual([conversationId]);
    const { onDone } = renderDialog('block', { id: other.id, name: 'Ben' }, conversationId);
    fireEvent.click(screen.getByRole('button', { name: en['safety.block.confirm'] }));
    await waitFor(() => expect(onDone).toHaveBeenCalledOnce());

    const listed = (await api().get('/api/users/me/blocks/', { token: me.token })).body.results;
    expect(listed.map((person: { id: number }) => person.id)).toEqual([other.id]);
    expect((await api().get(`/api/conversations/${conversationId}/`, { token: other.token })).status).toBe(404);
    expect(useConversations.getState().started).toEqual([]);
    expect(useChat.getState().threads[conversationId]).toBeUndefined();
    // Ended by this user: the chat page leaves without the "has ended" notice.
    expect(useChat.getState().ended[conversationId]).toEqual({ name: 'Ben', userId: other.id, byMe: true });
    expect(useSafety.getState().gone[other.id]).toBe(true);
  });

  it('says so calmly when the person is already out of reach (404), and still removes them', async () => {
    const { other, conversationId } = await matchedPair();
    // Ben blocked first: for Ana he no longer exists.
    await api().post(`/api/users/${useSession.getState().user!.id}/block/`, { token: other.token });
    const { onDone } = renderDialog('block', { id: other.id, name: 'Ben' }, conversationId);
    fireEvent.click(screen.getByRole('button', { name: en['safety.block.confirm'] }));
    await waitFor(() => expect(onDone).toHaveBeenCalledOnce());
    expect(useConversations.getState().started).toEqual([]);
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('Unmatch', () => {
  it('ends the conversation for both after the confirm step', async () => {
    const { other, conversationId } = await matchedPair();
    const { onDone } = renderDialog('unmatch', { id: other.id, name: 'Ben' }, conversationId);
    expect(screen.getByRole('dialog', { name: 'Unmatch Ben?' }).textContent).toContain(en['safety.unmatch.text']);
    fireEvent.click(screen.getByRole('button', { name: en['safety.unmatch.confirm'] }));
    await waitFor(() => expect(onDone).toHaveBeenCalledOnce());
    expect((await api().get(`/api/conversations/${conversationId}/`, { token: other.token })).status).toBe(404);
    expect(useConversations.getState().started).toEqual([]);
  });
});

describe('Report', () => {
  it('offers the seven reasons, asks for one, and posts the reason, trimmed details and the conversation', async () => {
    const { me, other, conversationId } = await matchedPair();
    const { onDone } = renderDialog('report', { id: other.id, name: 'Ben' }, conversationId);
    const dialog = screen.getByRole('dialog', { name: 'Report Ben' });
    const radios = screen.getAllByRole('radio');
    expect(radios.map((radio) => (radio as HTMLInputElement).value)).toEqual([...REPORT_REASONS]);
    for (const reason of REPORT_REASONS) screen.getByRole('radio', { name: en[`safety.reason.${reason}`] });
    expect(dialog.textContent).toContain(en['safety.report.blocks'].replace('{name}', 'Ben'));
    // Nothing is said to the reported person: not "who", as if the report itself were.
    expect(dialog.textContent).toContain("Ben won't know you reported them.");
    expect(document.activeElement).toBe(radios[0]);

    (screen.getByRole('button', { name: en['safety.report.send'] }) as HTMLButtonElement).focus();
    fireEvent.click(screen.getByRole('button', { name: en['safety.report.send'] }));
    expect(screen.getByRole('alert').textContent).toBe(en['safety.report.pickReason']);
    expect(onDone).not.toHaveBeenCalled();
    // Taken to the reasons, which may be scrolled away above on a small phone, under which it is said,
    // and which name it (a screen reader says it with the focused reason).
    expect(document.activeElement).toBe(radios[0]);
    const said = screen.getByRole('alert');
    expect(said.closest('fieldset')).toBe(radios[0]!.closest('fieldset'));
    expect(radios.every((radio) => radio.getAttribute('aria-describedby') === said.id && radio.getAttribute('aria-invalid') === 'true')).toBe(true);

    fireEvent.click(screen.getByRole('radio', { name: en['safety.reason.spam'] }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(radios.some((radio) => radio.hasAttribute('aria-describedby') || radio.hasAttribute('aria-invalid'))).toBe(false);
    const details = screen.getByLabelText(en['safety.report.details']) as HTMLTextAreaElement;
    expect(details.maxLength).toBe(REPORT_DETAILS_MAX_LENGTH);
    fireEvent.change(details, { target: { value: '  Sells tickets to a party that does not exist.  ' } });
    // The most as English writes it, as the chat's composer does: it read "49 / 1000".
    expect(screen.getByText(`49 / ${REPORT_DETAILS_MAX_LENGTH.toLocaleString('en')}`)).toBeTruthy();
    expect(REPORT_DETAILS_MAX_LENGTH.toLocaleString('en')).toContain(',');
    fireEvent.click(screen.getByRole('button', { name: en['safety.report.send'] }));
    await waitFor(() => expect(onDone).toHaveBeenCalledOnce());

    const [report] = (await openReports()).filter((item) => item.reporter.id === me.id);
    expect(report).toMatchObject({ reason: 'spam', details: 'Sells tickets to a party that does not exist.', reported: { id: other.id } });
    const detail = await api().get(`/api/moderation/reports/${report!.id}/`, { token: moderator.token });
    expect(detail.body.conversation_id).toBe(conversationId);
    expect(detail.body.snapshot.messages.map((message: { content: string }) => message.content)).toEqual(['hello there']);
    // Reporting blocks them too.
    expect(useConversations.getState().started).toEqual([]);
  });

  it('shows a field error from the server under the details, and keeps the dialog open', async () => {
    const { other, conversationId } = await matchedPair();
    const { onDone } = renderDialog('report', { id: other.id, name: 'Ben' }, conversationId);
    fireEvent.click(screen.getByRole('radio', { name: en['safety.reason.other'] }));
    // Past the limit (the field's maxLength stops typing, not a value set in code): the server answers 400 for `details`.
    fireEvent.change(screen.getByLabelText(en['safety.report.details']), { target: { value: 'x'.repeat(REPORT_DETAILS_MAX_LENGTH + 1) } });
    fireEvent.click(screen.getByRole('button', { name: en['safety.report.send'] }));
    await waitFor(() => expect(screen.getByLabelText(en['safety.report.details']).getAttribute('aria-invalid')).toBe('true'));
    expect(screen.getByRole('alert').textContent).toBeTruthy();
    expect(onDone).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: en['safety.report.send'] })).not.toHaveProperty('disabled', true);
  });

  it('counts an emoji in the details as one character, as the server does, and takes 1,000 of them', async () => {
    const { me, other } = await matchedPair();
    const { onDone } = renderDialog('report', { id: other.id, name: 'Ben' });
    fireEvent.click(screen.getByRole('radio', { name: en['safety.reason.other'] }));
    const details = screen.getByLabelText(en['safety.report.details']) as HTMLTextAreaElement;
    fireEvent.change(details, { target: { value: '😀'.repeat(10) } });
    expect(screen.getByText(`10 / ${REPORT_DETAILS_MAX_LENGTH.toLocaleString('en')}`)).toBeTruthy();
    // Room for 990 more characters, which the field's maxLength counts in UTF-16 units: 990 letters.
    expect(details.maxLength - details.value.length).toBe(REPORT_DETAILS_MAX_LENGTH - 10);
    const full = `${'a'.repeat(REPORT_DETAILS_MAX_LENGTH - 10)}${'😀'.repeat(10)}`;
    fireEvent.change(details, { target: { value: full } });
    expect(details.value.length).toBeLessThanOrEqual(details.maxLength);
    fireEvent.click(screen.getByRole('button', { name: en['safety.report.send'] }));
    await waitFor(() => expect(onDone).toHaveBeenCalledOnce());
    const [report] = (await openReports()).filter((item) => item.reporter.id === me.id);
    expect(report!.details).toBe(full);
  });

  it('leaves out details in which nothing shows, as the server would count them blank', async () => {
    const { me, other } = await matchedPair();
    // From their profile: no conversation is named, so the note does not promise to remove one.
    const { onDone } = renderDialog('report', { id: other.id, name: 'Ben' });
    expect(screen.getByRole('dialog', { name: 'Report Ben' }).textContent).toContain(en['safety.report.blocksProfile'].replace('{name}', 'Ben'));
    fireEvent.click(screen.getByRole('radio', { name: en['safety.reason.other'] }));
    fireEvent.change(screen.getByLabelText(en['safety.report.details']), { target: { value: ' \u200b\u200b ' } });
    fireEvent.click(screen.getByRole('button', { name: en['safety.report.send'] }));
    await waitFor(() => expect(onDone).toHaveBeenCalledOnce());
    const [report] = (await openReports()).filter((item) => item.reporter.id === me.id);
    expect(report).toMatchObject({ reason: 'other', details: '', reported: { id: other.id } });
  });

  it('says "a lot of reports today" on a 429, in Spanish too, by status and not by the words, and offers the block alone', async () => {
    const { me } = await matchedPair();
    const others = await Promise.all([1, 2, 3].map(() => makeCompletedUser(server, man)));
    for (const other of others.slice(0, 2)) {
      expect((await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'spam' } })).status).toBe(201);
    }
    await act(() => useLanguage.getState().setLanguage('es'));
    const { onDone } = renderDialog('report', { id: others[2]!.id, name: 'Carl' });
    fireEvent.click(screen.getByRole('radio', { name: es['safety.reason.fake_profile'] }));
    fireEvent.click(screen.getByRole('button', { name: es['safety.report.send'] }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(es['safety.report.throttled']));
    expect(onDone).not.toHaveBeenCalled();
    expect((await openReports()).filter((item) => item.reported.id === others[2]!.id)).toEqual([]);

    // The report's block is what keeps her safe now: offered on its own, in the send's place (it cannot go today), and done.
    expect(screen.queryByRole('button', { name: es['safety.report.send'] })).toBeNull();
    const blocked = async () =>
      ((await api().get('/api/users/me/blocks/', { token: me.token })).body.results as { id: number }[]).map((person) => person.id);
    expect(await blocked()).not.toContain(others[2]!.id);
    fireEvent.click(screen.getByRole('button', { name: es['safety.report.blockInstead'].replace('{name}', 'Carl') }));
    await waitFor(() => expect(onDone).toHaveBeenCalledOnce());
    expect(await blocked()).toContain(others[2]!.id);
  });

  it('says a block past its limit with the wait, not the reports’ words', async () => {
    const { me } = await matchedPair();
    const others = await Promise.all([1, 2, 3, 4].map(() => makeCompletedUser(server, man)));
    for (const other of others.slice(0, 3)) {
      expect((await api().post(`/api/users/${other.id}/block/`, { token: me.token })).status).toBe(204);
    }
    const { onDone } = renderDialog('block', { id: others[3]!.id, name: 'Dan' });
    fireEvent.click(screen.getByRole('button', { name: en['safety.block.confirm'] }));
    // The hour's window, all of it still to wait.
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(format(en['error.throttledForMinutes'], { minutes: 60 })));
    expect(onDone).not.toHaveBeenCalled();
  });

  it('keeps Cancel in view with the focused button when the limit line pushes them down the sheet', async () => {
    const { me } = await matchedPair();
    const others = await Promise.all([1, 2, 3].map(() => makeCompletedUser(server, man)));
    for (const other of others.slice(0, 2)) {
      expect((await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'spam' } })).status).toBe(201);
    }
    // jsdom lays nothing out: what the sheet scrolls into view is what it asks to.
    const scrolled: Element[] = [];
    HTMLElement.prototype.scrollIntoView = function (this: HTMLElement) {
      scrolled.push(this);
    };
    try {
      renderDialog('report', { id: others[2]!.id, name: 'Carl' });
      fireEvent.click(screen.getByRole('radio', { name: en['safety.reason.fake_profile'] }));
      const send = screen.getByRole('button', { name: en['safety.report.send'] });
      send.focus();
      fireEvent.click(send);
      await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(en['safety.report.throttled']));
      await waitFor(() => expect(send.getAttribute('aria-disabled')).toBe('false'));

      expect(document.activeElement).toBe(send);
      const last = scrolled.at(-1)!;
      expect(last.contains(send)).toBe(true);
      expect(last.contains(screen.getByRole('button', { name: en['safety.cancel'] }))).toBe(true);
    } finally {
      delete (HTMLElement.prototype as Partial<HTMLElement>).scrollIntoView;
    }
  });
});

describe('the ⋮ menu', () => {
  it('has Report, Block and Unmatch in a chat, Report and Block on a profile; arrows move, Escape closes', async () => {
    const view = render(
      <Router hook={memoryLocation({ path: '/app/chat/1' }).hook}>
        <SafetyMenu person={{ id: 2, name: 'Ben' }} conversationId={1} leaveTo="/app/matches/" />
      </Router>,
    );
    const button = screen.getByRole('button', { name: en['safety.menu'] });
    expect(button.getAttribute('aria-haspopup')).toBe('menu');
    fireEvent.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    const items = screen.getAllByRole('menuitem');
    expect(items.map((item) => item.textContent)).toEqual([en['safety.report'], en['safety.block'], en['safety.unmatch']]);
    expect(document.activeElement).toBe(items[0]);
    fireEvent.keyDown(items[0]!, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(items[1]);
    fireEvent.keyDown(items[1]!, { key: 'ArrowUp' });
    fireEvent.keyDown(items[0]!, { key: 'ArrowUp' });
    expect(document.activeElement).toBe(items[2]);
    fireEvent.keyDown(items[2]!, { key: 'Escape' });
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.activeElement).toBe(button);
    view.unmount();

    render(
      <Router hook={memoryLocation({ path: '/app/profiles/2' }).hook}>
        <SafetyMenu person={{ id: 2, name: 'Ben' }} leaveTo="/app/home/" />
      </Router>,
    );
    fireEvent.click(screen.getByRole('button', { name: en['safety.menu'] }));
    expect(screen.getAllByRole('menuitem').map((item) => item.textContent)).toEqual([en['safety.report'], en['safety.block']]);
    fireEvent.click(screen.getByRole('menuitem', { name: en['safety.block'] }));
    await screen.findByRole('dialog', { name: 'Block Ben?' });
    expect(screen.getByRole('dialog').textContent).toContain(en['safety.block.textProfile']);
    // Cancel gives the focus back to the ⋮ button.
    fireEvent.click(screen.getByRole('button', { name: en['safety.cancel'] }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: en['safety.menu'] }));
  });
});

describe('leaving a chat through the ⋮ menu', () => {
  it.each(['block', 'unmatch', 'report'] as const)('puts the focus on the list’s heading after %s, not on the page', async (action) => {
    const { conversationId } = await matchedPair();
    // As the app routes: on the browser's history, where a navigation waits for the dialog's entry to go.
    window.history.replaceState(null, '', `/app/chat/${conversationId}`);
    render(
      <Router aroundNav={afterOverlays}>
        <AppShell>
          <Switch>
            <Route path="/app/chat/:id">{(params: { id: string }) => <Chat id={Number(params.id)} />}</Route>
            <Route path="/app/matches/" component={Matches} />
          </Switch>
        </AppShell>
      </Router>,
    );
    await screen.findByText('hello there');
    fireEvent.click(screen.getByRole('button', { name: en['safety.menu'] }));
    fireEvent.click(screen.getByRole('menuitem', { name: en[`safety.${action}`] }));
    const dialog = await screen.findByRole('dialog');
    if (action === 'report') fireEvent.click(within(dialog).getByRole('radio', { name: en['safety.reason.spam'] }));
    const confirm = action === 'report' ? 'safety.report.send' : (`safety.${action}.confirm` as const);
    fireEvent.click(within(dialog).getByRole('button', { name: en[confirm] }));
    await waitFor(() => expect(window.location.pathname).toBe('/app/matches/'));
    // Where a screen reader starts reading the page, as after any change of page; the keyboard goes on from there.
    const heading = screen.getByRole('heading', { level: 1, name: en['app.nav.chats'] });
    await waitFor(() => expect(document.activeElement).toBe(heading));
  });
});

describe('match:removed', () => {
  it('takes the conversation out of both lists, the chat store, the deck, "likes you", its toast and an open profile', async () => {
    const { other, conversationId } = await matchedPair();
    await useChat.getState().open(conversationId);
    const card = { id: other.id, name: 'Ben', age: 30, bio: '', image: null };
    useDeck.setState({ current: null, queue: [card] });
    // Ben liked me again since (a subscriber's list), and his last message is on a toast.
    useLikes.setState({ count: 1, people: [card], next: null });
    toast.message('you will regret this', { title: 'Ben', key: chatToastKey(conversationId) });

    conversationEnded(conversationId);
    expect(useLikes.getState()).toMatchObject({ count: 0, people: [] });
    expect(useToasts.getState().toasts.map((item) => item.message)).not.toContain('you will regret this');
    useLikes.getState().reset();
    expect(useConversations.getState().started).toEqual([]);
    expect(useConversations.getState().empty).toEqual([]);
    expect(useChat.getState().threads[conversationId]).toBeUndefined();
    expect(useChat.getState().ended[conversationId]).toEqual({ name: 'Ben', userId: other.id, byMe: false });
    expect(useDeck.getState().queue).toEqual([]);
    expect(useSafety.getState().gone[other.id]).toBe(true);
    // Again (another instance, a reconnect): nothing changes.
    conversationEnded(conversationId);
    expect(useChat.getState().ended[conversationId]).toEqual({ name: 'Ben', userId: other.id, byMe: false });
  });

  it('finds a conversation that ended while the socket was away: the catch-up reports it gone', async () => {
    const { me, other, conversationId } = await matchedPair();
    await useChat.getState().open(conversationId);
    expect(await useChat.getState().catchUp()).toEqual([]);
    await api().post(`/api/users/${me.id}/block/`, { token: other.token });
    expect(await useChat.getState().catchUp()).toEqual([conversationId]);
  });

  it('leaves an open chat for the list, which says calmly that it ended; leaving the list clears it', async () => {
    const { me, other, conversationId } = await matchedPair();
    const history = renderChat(conversationId);
    await screen.findByText('hello there');
    // What the server does when Ben blocks Ana, then what its socket event does here.
    expect((await api().post(`/api/users/${me.id}/block/`, { token: other.token })).status).toBe(204);
    act(() => conversationEnded(conversationId));

    await waitFor(() => expect(history!.at(-1)).toBe('/app/matches/'));
    const notice = await screen.findByRole('status');
    expect(notice.textContent).toBe('Your conversation with Ben has ended.');
    expect(screen.queryByRole('alert')).toBeNull();
    await screen.findByText(en['matches.noConversations']);
    fireEvent.click(screen.getByRole('button', { name: en['chat.endedDismiss'] }));
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('says so on the list when a conversation on it ends, with Report', async () => {
    const { me, other, conversationId } = await matchedPair(['Rosa', 'Iker']);
    window.history.pushState(null, '', '/app/matches/');
    try {
      render(
        <Router hook={memoryLocation({ path: '/app/matches/' }).hook}>
          <Matches />
        </Router>,
      );
      await screen.findByText('hello there');
      expect((await api().post(`/api/users/${me.id}/block/`, { token: other.token })).status).toBe(204);
      act(() => conversationEnded(conversationId));
      expect((await screen.findByRole('status')).textContent).toBe('Your conversation with Iker has ended.');
      expect(screen.queryByText('hello there')).toBeNull();
      expect(screen.getByRole('button', { name: en['safety.report'] })).toBeTruthy();
    } finally {
      window.history.pushState(null, '', '/');
    }
  });

  it('says so, with Report, the next time the list opens when a chat ends while the user is elsewhere', async () => {
    const { me, other, conversationId } = await matchedPair(['Alba', 'Ciro']);
    // On the deck, say: nothing of the chat on screen, its row and its unread count go.
    expect((await api().post(`/api/users/${me.id}/block/`, { token: other.token })).status).toBe(204);
    act(() => conversationEnded(conversationId));
    expect(useConversations.getState().started).toEqual([]);

    render(
      <Router hook={memoryLocation({ path: '/app/matches/' }).hook}>
        <Matches />
      </Router>,
    );
    expect((await screen.findByRole('status')).textContent).toBe('Your conversation with Ciro has ended.');
    expect(screen.getByRole('button', { name: en['safety.report'] })).toBeTruthy();
  });

  it('offers no Report once the other person’s account is gone, which a report could not reach, and keeps it after a block', async () => {
    const deleted = await matchedPair(['Sara', 'Pau']);
    await server.app.db.delete(users).where(eq(users.id, deleted.other.id));
    act(() => conversationEnded(deleted.conversationId));
    const { unmount } = render(
      <Router hook={memoryLocation({ path: '/app/matches/' }).hook}>
        <Matches />
      </Router>,
    );
    // Said as any ending is: only the offer goes.
    expect((await screen.findByRole('status')).textContent).toBe('Your conversation with Pau has ended.');
    await waitFor(() => expect(screen.queryByRole('button', { name: en['safety.report'] })).toBeNull());
    unmount();

    const blocked = await matchedPair(['Marta', 'Joel']);
    expect((await api().post(`/api/users/${blocked.me.id}/block/`, { token: blocked.other.token })).status).toBe(204);
    act(() => conversationEnded(blocked.conversationId));
    const asked: Array<Promise<unknown>> = [];
    const fetching = globalThis.fetch;
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      const answer = fetching(input, init);
      if (String(input).includes('/api/conversations/ended/')) asked.push(answer.then((response) => response.clone().json()));
      return answer;
    });
    render(
      <Router hook={memoryLocation({ path: '/app/matches/' }).hook}>
        <Matches />
      </Router>,
    );
    expect((await screen.findByRole('status')).textContent).toBe('Your conversation with Joel has ended.');
    await waitFor(() => expect(asked).toHaveLength(1));
    await act(() => Promise.all(asked));
    expect(screen.getByRole('button', { name: en['safety.report'] })).toBeTruthy();
  });

  it('offers to report the one who ended an open chat, with what they wrote', async () => {
    const { me, other, conversationId } = await matchedPair(['Ines', 'Hugo']);
    renderChat(conversationId);
    await screen.findByText('hello there');
    expect((await api().delete(`/api/conversations/${conversationId}/`, { token: other.token })).status).toBe(204);
    act(() => conversationEnded(conversationId));

    fireEvent.click(await screen.findByRole('button', { name: en['safety.report'] }));
    const dialog = await screen.findByRole('dialog', { name: 'Report Hugo' });
    // The chat is gone already: the note says only what the report still does.
    expect(dialog.textContent).toContain("Reporting also blocks Hugo: you won't be shown to each other again.");
    fireEvent.click(screen.getByRole('radio', { name: en['safety.reason.harassment'] }));
    fireEvent.click(screen.getByRole('button', { name: en['safety.report.send'] }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(screen.queryByRole('status')).toBeNull();

    const queue = await api().get('/api/moderation/reports/', { token: moderator.token });
    const filed = queue.body.results.find((report: { reporter: { id: number } }) => report.reporter.id === me.id);
    expect(filed).toMatchObject({ reason: 'harassment', reported: { id: other.id, name: 'Hugo' } });
    const detail = await api().get(`/api/moderation/reports/${filed.id}/`, { token: moderator.token });
    expect(detail.body.conversation_id).toBe(conversationId);
    expect(detail.body.snapshot.messages.map((message: { content: string }) => message.content)).toEqual(['hello there']);
  });

  it('leaves their profile, opened from the chat, for the list that offers to report them', async () => {
    const { me, other, conversationId } = await matchedPair(['Vera', 'Omar']);
    const history = renderLeavingForList(`/app/profiles/${other.id}/`, '/app/profiles/:id/', (id) => <ProfileView id={id} />);
    await screen.findByRole('heading', { name: /Omar/ });
    expect((await api().post(`/api/users/${me.id}/block/`, { token: other.token })).status).toBe(204);
    act(() => {
      personGone(other.id);
      conversationEnded(conversationId);
    });

    await waitFor(() => expect(history.at(-1)).toBe('/app/matches/'));
    expect((await screen.findByRole('status')).textContent).toBe('Your conversation with Omar has ended.');
    fireEvent.click(screen.getByRole('button', { name: en['safety.report'] }));
    await screen.findByRole('dialog', { name: 'Report Omar' });
  });

  it('keeps a report being written when the other ends the chat under it: Report on the list goes on from it', async () => {
    const { me, other, conversationId } = await matchedPair(['Lia', 'Teo']);
    renderChat(conversationId);
    await screen.findByText('hello there');
    fireEvent.click(screen.getByRole('button', { name: en['safety.menu'] }));
    fireEvent.click(await screen.findByRole('menuitem', { name: en['safety.report'] }));
    await screen.findByRole('dialog', { name: 'Report Teo' });
    fireEvent.click(screen.getByRole('radio', { name: en['safety.reason.harassment'] }));
    fireEvent.change(screen.getByLabelText(en['safety.report.details']), { target: { value: 'Threatened me at the bar.' } });
    // Teo unmatches: the chat, and the sheet in it, go.
    expect((await api().delete(`/api/conversations/${conversationId}/`, { token: other.token })).status).toBe(204);
    act(() => conversationEnded(conversationId));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    fireEvent.click(await screen.findByRole('button', { name: en['safety.report'] }));
    await screen.findByRole('dialog', { name: 'Report Teo' });
    expect((screen.getByRole('radio', { name: en['safety.reason.harassment'] }) as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText(en['safety.report.details']) as HTMLTextAreaElement).value).toBe('Threatened me at the bar.');
    fireEvent.click(screen.getByRole('button', { name: en['safety.report.send'] }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const [filed] = (await openReports()).filter((report) => report.reporter.id === me.id);
    expect(filed).toMatchObject({ reason: 'harassment', details: 'Threatened me at the bar.', reported: { id: other.id } });
    // Sent: nothing is kept to start the next one from.
    expect(useSafety.getState().reportDrafts).toEqual({});
  });

  it('takes the offer to report away on my other phones once I reported or blocked them on one', async () => {
    const { other, conversationId } = await matchedPair(['Noa', 'Gil']);
    useConversations.getState().showEndedNotice({ conversationId, name: 'Gil', userId: other.id });
    // The blocked person's own news of a block (not mine) leaves my offer be.
    act(() => personGone(other.id));
    expect(useConversations.getState().endedNotice?.userId).toBe(other.id);
    act(() => personGone(other.id, true));
    expect(useConversations.getState().endedNotice).toBeNull();
  });
});

describe('Ended chats', () => {
  it('lists chats that ended, however they ended, with Report; a reported one says so', async () => {
    const { me, other: blocker } = await matchedPair(['Nora', 'Tom']);
    const unmatcher = await makeCompletedUser(server, { name: 'Leo', ...man });
    await api().post('/api/matching/', { token: unmatcher.token, json: { response: 'like', other: me.id } });
    const second = await api().post('/api/matching/', { token: me.token, json: { response: 'like', other: unmatcher.id } });
    await api().post(`/api/users/${me.id}/block/`, { token: blocker.token });
    await api().delete(`/api/conversations/${second.body.conversation_id}/`, { token: unmatcher.token });
    render(
      <Router hook={memoryLocation({ path: '/app/settings/ended/' }).hook}>
        <EndedChats />
      </Router>,
    );
    await screen.findByText('Leo');
    expect([...document.querySelectorAll('.person-name')].map((node) => node.textContent)).toEqual(['Leo', 'Tom']);

    fireEvent.click(screen.getByRole('button', { name: 'Report Tom' }));
    await screen.findByRole('dialog', { name: 'Report Tom' });
    fireEvent.click(screen.getByRole('radio', { name: en['safety.reason.offline_behaviour'] }));
    fireEvent.click(screen.getByRole('button', { name: en['safety.report.send'] }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    // The row stays, says the report went, and offers it no more.
    const rows = [...document.querySelectorAll('.person-row')];
    expect(rows[1]?.textContent).toContain(en['ended.reported']);
    expect(screen.queryByRole('button', { name: 'Report Tom' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Report Leo' })).toBeTruthy();
    const queue = await api().get('/api/moderation/reports/', { token: moderator.token });
    const filed = queue.body.results.map((report: { reporter: { id: number }; reported: { id: number } }) => [report.reporter.id, report.reported.id]);
    expect(filed).toContainEqual([me.id, blocker.id]);

    // Leo's account goes while the list is open: his report finds no one, and his row goes too.
    await server.app.db.delete(users).where(eq(users.id, unmatcher.id));
    fireEvent.click(screen.getByRole('button', { name: 'Report Leo' }));
    await screen.findByRole('dialog', { name: 'Report Leo' });
    fireEvent.click(screen.getByRole('radio', { name: en['safety.reason.spam'] }));
    fireEvent.click(screen.getByRole('button', { name: en['safety.report.send'] }));
    await waitFor(() => expect(screen.queryByText('Leo')).toBeNull());
    expect([...document.querySelectorAll('.person-name')].map((node) => node.textContent)).toEqual(['Tom']);
  });

  it('says so when no chat has ended', async () => {
    await matchedPair(['Olga', 'Pau']);
    render(
      <Router hook={memoryLocation({ path: '/app/settings/ended/' }).hook}>
        <EndedChats />
      </Router>,
    );
    await screen.findByText('None of your chats has ended in the last 30 days.');
  });
});

describe('Blocked people', () => {
  it('lists them newest first with Unblock behind a confirm step, then the empty state', async () => {
    const { me, other, conversationId } = await matchedPair();
    const carl = await makeCompletedUser(server, { name: 'Carl', ...man });
    await api().post(`/api/users/${other.id}/block/`, { token: me.token });
    await api().post(`/api/users/${carl.id}/block/`, { token: me.token });
    render(
      <Router hook={memoryLocation({ path: '/app/settings/blocked/' }).hook}>
        <Blocked />
      </Router>,
    );
    await screen.findByText('Carl');
    expect([...document.querySelectorAll('.person-name')].map((node) => node.textContent)).toEqual(['Carl', 'Ben']);

    fireEvent.click(screen.getByRole('button', { name: 'Unblock Ben' }));
    const dialog = screen.getByRole('dialog', { name: 'Unblock Ben?' });
    expect(dialog.textContent).toContain(en['blocked.unblockText']);
    fireEvent.click(screen.getByRole('button', { name: en['safety.cancel'] }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect((await api().get('/api/users/me/blocks/', { token: me.token })).body.results).toHaveLength(2);

    fireEvent.click(screen.getByRole('button', { name: 'Unblock Ben' }));
    fireEvent.click(screen.getByRole('button', { name: en['blocked.unblock'] }));
    await waitFor(() => expect(screen.queryByText('Ben')).toBeNull());
    expect((await api().get('/api/users/me/blocks/', { token: me.token })).body.results.map((person: { id: number }) => person.id)).toEqual([carl.id]);
    // Unblocking does not bring the conversation back.
    expect((await api().get(`/api/conversations/${conversationId}/`, { token: me.token })).status).toBe(404);

    fireEvent.click(screen.getByRole('button', { name: 'Unblock Carl' }));
    fireEvent.click(screen.getByRole('button', { name: en['blocked.unblock'] }));
    await screen.findByText(en['blocked.empty']);
  });

  it('reports someone blocked from their profile with no conversation, through the same sheet, and keeps them blocked', async () => {
    const me = await makeCompletedUser(server, { name: 'Ana', ...woman }, { firstName: 'Ana' });
    const fake = await makeCompletedUser(server, { name: 'Felix', ...man }, { firstName: 'Felix' });
    const gone = await makeCompletedUser(server, { name: 'Gus', ...man }, { firstName: 'Gus' });
    // Blocked in a hurry from their profiles: no like, no conversation.
    for (const person of [fake, gone]) expect((await api().post(`/api/users/${person.id}/block/`, { token: me.token })).status).toBe(204);
    setToken(me.token);
    render(
      <Router hook={memoryLocation({ path: '/app/settings/blocked/' }).hook}>
        <Blocked />
      </Router>,
    );
    await screen.findByText('Felix');

    fireEvent.click(screen.getByRole('button', { name: 'Report Felix' }));
    const dialog = await screen.findByRole('dialog', { name: 'Report Felix' });
    expect(screen.getAllByRole('radio').map((radio) => (radio as HTMLInputElement).value)).toEqual([...REPORT_REASONS]);
    // Nothing is left to block or remove: the note says the block stays.
    expect(dialog.querySelector('.report-note')?.textContent).toBe("Felix won't know you reported them. Felix stays blocked.");
    fireEvent.click(screen.getByRole('radio', { name: en['safety.reason.underage'] }));
    fireEvent.change(screen.getByLabelText(en['safety.report.details']), { target: { value: 'Says she is 15 in her bio.' } });
    fireEvent.click(screen.getByRole('button', { name: en['safety.report.send'] }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(useToasts.getState().toasts.map((item) => item.message)).toContain(en['safety.report.sent']);

    const [filed] = (await openReports()).filter((report) => report.reporter.id === me.id);
    expect(filed).toMatchObject({ reason: 'underage', details: 'Says she is 15 in her bio.', reported: { id: fake.id } });
    // Still on the list, still blocked, still hidden; the row says the report went, and offers it no more.
    expect([...document.querySelectorAll('.person-name')].map((node) => node.textContent)).toEqual(['Gus', 'Felix']);
    expect(document.querySelectorAll('.person-row')[1]?.textContent).toContain(en['blocked.reported']);
    expect(screen.queryByRole('button', { name: 'Report Felix' })).toBeNull();
    const blocks = (await api().get('/api/users/me/blocks/', { token: me.token })).body.results as { id: number }[];
    expect(blocks.map((person) => person.id)).toEqual([gone.id, fake.id]);
    expect((await api().get(`/api/users/${fake.id}/profile/`, { token: me.token })).status).toBe(404);
    // So does the list read again, as on another visit, until a moderator decides the report.
    await act(() => useSafety.getState().load('blocked'));
    expect(screen.queryByRole('button', { name: 'Report Felix' })).toBeNull();

    // Gus's account goes while the list is open: his report finds no one, and his row goes too.
    await server.app.db.delete(users).where(eq(users.id, gone.id));
    fireEvent.click(screen.getByRole('button', { name: 'Report Gus' }));
    await screen.findByRole('dialog', { name: 'Report Gus' });
    fireEvent.click(screen.getByRole('radio', { name: en['safety.reason.spam'] }));
    fireEvent.click(screen.getByRole('button', { name: en['safety.report.send'] }));
    await waitFor(() => expect(screen.queryByText('Gus')).toBeNull());
    expect([...document.querySelectorAll('.person-name')].map((node) => node.textContent)).toEqual(['Felix']);
  });

  it('pages with "Show more" when there are more than a page', async () => {
    const me = await makeUser(server);
    const people = await Promise.all(Array.from({ length: 52 }, () => makeUser(server, { firstName: 'Blocked' })));
    await server.app.db.insert(blocks).values(people.map((person) => ({ blockerId: me.id, blockedId: person.id })));
    setToken(me.token);
    render(
      <Router hook={memoryLocation({ path: '/app/settings/blocked/' }).hook}>
        <Blocked />
      </Router>,
    );
    const more = await screen.findByRole('button', { name: en['blocked.more'] });
    expect(document.querySelectorAll('.person-row')).toHaveLength(50);
    fireEvent.click(more);
    await waitFor(() => expect(document.querySelectorAll('.person-row')).toHaveLength(52));
    expect(screen.queryByRole('button', { name: en['blocked.more'] })).toBeNull();
  });

  it.each([
    ['Blocked people', 'Try again', '/api/users/me/blocks/', () => <Blocked />],
    ['Ended chats', 'Try again', '/api/conversations/ended/', () => <EndedChats />],
    ['Blocked people', 'the socket back', '/api/users/me/blocks/', () => <Blocked />],
    ['Ended chats', 'the socket back', '/api/conversations/ended/', () => <EndedChats />],
  ])('%s, a first read that failed: offers Try again, in Spanish too, and reads the list again on %s', async (_name, how, path, page) => {
    const { other } = await matchedPair(['Rut', 'Sam']);
    await act(() => useLanguage.getState().setLanguage('es'));
    const reachesServer = globalThis.fetch;
    let fails = true;
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) =>
      fails && String(input).startsWith(path)
        ? Promise.resolve(Response.json({ detail: 'Service unavailable.' }, { status: 503 }))
        : reachesServer(input, init),
    );
    await api().post(`/api/users/${other.id}/block/`, { token: useSession.getState().token! });
    useConnection.setState({ connected: false });
    render(<Router hook={memoryLocation({ path: '/app/settings/' }).hook}>{page()}</Router>);
    expect((await screen.findByRole('alert')).textContent).toBe(es['error.generic']);
    fails = false;
    if (how === 'Try again') fireEvent.click(screen.getByRole('button', { name: es['app.retry'] }));
    // Or by itself, the moment the socket connects again.
    else act(() => useConnection.setState({ connected: true }));
    await screen.findByText('Sam');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByRole('button', { name: es['app.retry'] })).toBeNull();
  });

  it('keeps the pages already shown when the list is read again (a block made on another phone)', async () => {
    const me = await makeUser(server);
    const people = await Promise.all(Array.from({ length: 52 }, () => makeUser(server, { firstName: 'Blocked' })));
    await server.app.db.insert(blocks).values(people.map((person) => ({ blockerId: me.id, blockedId: person.id })));
    setToken(me.token);
    useSession.setState({ token: me.token });
    await useSafety.getState().load('blocked');
    await useSafety.getState().loadMore('blocked');
    expect(useSafety.getState().lists.blocked).toMatchObject({ items: { length: 52 }, next: null });

    // Another phone blocks one more: this one reads the list again (`person:gone`, by me).
    const newest = await makeCompletedUser(server, {}, { firstName: 'Newest' });
    expect((await api().post(`/api/users/${newest.id}/block/`, { token: me.token })).status).toBeLessThan(300);
    personGone(newest.id, true);
    await waitFor(() => expect(useSafety.getState().lists.blocked.items?.[0]?.id).toBe(newest.id));
    const { items, next } = useSafety.getState().lists.blocked;
    expect(new Set(items!.map((person) => person.id))).toEqual(new Set([newest, ...people].map((person) => person.id)));
    expect(items).toHaveLength(53);
    expect(next).toBeNull();
  });
});

describe('Moderation', () => {
  /** A moderator of its own: signing out after the test revokes the token it used. */
  async function signInAsModerator() {
    const user = await makeModerator(server);
    setToken(user.token);
    useSession.setState({
      token: user.token,
      user: { id: user.id, email: user.email, first_name: 'Mod', last_name: '', image: null, is_profile_completed: true, has_subscription: false, email_verified: true, has_password: true, is_moderator: true, language: 'es' },
    });
  }

  /** Moderation open at `path`, in the app's shell with `shell`; the addresses it goes through. */
  function openModeration(path: string, { shell = false } = {}) {
    const { hook, history } = memoryLocation({ path, record: true });
    render(<Router hook={hook}>{shell ? <AppShell><Moderation /></AppShell> : <Moderation />}</Router>);
    return history!;
  }
  /** The moderation queue, open in the app's shell. */
  const openQueue = () => openModeration('/app/moderation/', { shell: true });
  /** A report's page, open alone (in the app's shell with `shell`). */
  const openReport = (id: number, options?: { shell?: boolean }) => openModeration(`/app/moderation/reports/${id}/`, options);

  /**
   * The server fails (503) the requests `fails` picks, as in a deploy or an outage; every other one still
   * reaches it. Answers the fetch that reaches it, to put back.
   */
  function serverFails(fails: (url: string) => boolean) {
    const reachesServer = globalThis.fetch;
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) =>
      fails(String(input)) ? Promise.resolve(Response.json({ detail: 'Internal server error.' }, { status: 503 })) : reachesServer(input, init),
    );
    return reachesServer;
  }

  it('lists open reports oldest first, opens one with its transcript, and dismisses it with a note', async () => {
    const { me, other } = await matchedPair(['Eva', 'Fer']);
    const first = await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'harassment', details: 'Rude.' } });
    await signInAsModerator();
    const history = openQueue();
    const row = await screen.findByRole('link', { name: /Fer/ });
    expect(row.textContent).toContain(en['safety.reason.harassment']);
    fireEvent.click(row);
    await screen.findByRole('heading', { name: en['safety.reason.harassment'] });
    const transcript = screen.getByRole('list', { name: en['moderation.transcript'] });
    expect(transcript.textContent).toContain(`${en['moderation.reported']} ·`);
    expect(transcript.textContent).toContain('hello there');

    fireEvent.change(screen.getByLabelText(en['moderation.note']), { target: { value: 'Not enough to act on.' } });
    fireEvent.click(screen.getByRole('button', { name: en['moderation.dismiss'] }));
    // Asked first: a resolved report cannot be reopened. Cancelled, nothing is sent.
    const confirm = screen.getByRole('dialog', { name: en['moderation.dismissTitle'] });
    expect(confirm.textContent).toContain(format(en['moderation.dismissText'], { name: 'Fer' }));
    fireEvent.click(screen.getByRole('button', { name: en['safety.cancel'] }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect((await api().get(`/api/moderation/reports/${first.body.id}/`, { token: moderator.token })).body.status).toBe('open');
    fireEvent.click(screen.getByRole('button', { name: en['moderation.dismiss'] }));
    fireEvent.click(screen.getAllByRole('button', { name: en['moderation.dismiss'] }).at(-1)!);
    await waitFor(() => expect(history.at(-1)).toBe('/app/moderation/'));
    // Back on the queue, the keyboard and the screen reader go on from its heading, not from the page.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('heading', { level: 1, name: en['moderation.title'] })));
    const detail = await api().get(`/api/moderation/reports/${first.body.id}/`, { token: moderator.token });
    expect(detail.body).toMatchObject({ status: 'resolved', resolution: 'dismiss', note: 'Not enough to act on.' });
    // The resolved list says what was decided, row by row.
    fireEvent.click(await screen.findByRole('button', { name: en['moderation.resolved'] }));
    const resolvedRow = await screen.findByRole('link', { name: new RegExp(`Fer.*${en['moderation.resolution.dismiss']}`) });
    expect(resolvedRow.getAttribute('href')).toBe(`/app/moderation/reports/${first.body.id}/`);
    // Dismissing bans nobody.
    expect((await api().get('/api/users/me/', { token: other.token })).status).toBe(200);
  });

  it('says a report came after its person was banned, and offers to dismiss it rather than to ban again', async () => {
    const { me, other } = await matchedPair(['Yara', 'Zed']);
    await banThroughModeration(server, moderator, other);
    // From the chat the ban ended: a report of them is still taken.
    const late = await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'harassment' } });
    expect(late.status).toBe(201);
    await signInAsModerator();
    const history = openQueue();
    const row = await screen.findByRole('link', { name: /Zed/ });
    expect(row.textContent).toContain(en['moderation.alreadyBanned']);
    // Reports about someone not banned say nothing of the kind.
    expect(screen.getAllByRole('link').filter((link) => link.textContent?.includes(en['moderation.alreadyBanned']))).toEqual([row]);

    fireEvent.click(row);
    await screen.findByRole('heading', { name: en['safety.reason.harassment'] });
    expect(screen.getByText(en['moderation.alreadyBanned']).closest('dd')?.textContent).toContain('Zed');
    // The name is in a <bdi> of its own: the sentence is the notice's whole text.
    expect(screen.getByText((_, element) => element?.classList.contains('notice') === true && element.textContent === format(en['moderation.alreadyBannedText'], { name: 'Zed' }))).toBeTruthy();
    expect(screen.queryByRole('button', { name: en['moderation.ban'] })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: en['moderation.dismiss'] }));
    fireEvent.click(screen.getAllByRole('button', { name: en['moderation.dismiss'] }).at(-1)!);
    await waitFor(() => expect(history.at(-1)).toBe('/app/moderation/'));
    expect((await api().get(`/api/moderation/reports/${late.body.id}/`, { token: moderator.token })).body).toMatchObject({
      status: 'resolved',
      resolution: 'dismiss',
    });
  });

  it('says the reported account was deleted since, rather than counting no reports about it', async () => {
    const { me, other } = await matchedPair(['Ines', 'Gone']);
    const filed = await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'spam' } });
    expect(filed.status).toBe(201);
    expect((await api().delete('/api/users/me/', { token: other.token, json: { password: other.password } })).status).toBe(204);
    await signInAsModerator();
    openQueue();
    // Named as the snapshot kept them; that the account is gone is said, not "Reports about them: 0".
    const row = await screen.findByRole('link', { name: /Gone/ });
    const none = format(en['moderation.count'], { count: 0 });
    expect(row.textContent).toContain(en['moderation.deleted']);
    expect(row.textContent).not.toContain(none);
    fireEvent.click(row);
    await screen.findByRole('heading', { name: en['safety.reason.spam'] });
    // The name is isolated in a <bdi> (an override in it cannot turn the line around); its line is the <dd>.
    const reported = screen.getByText('Gone', { selector: 'dd > bdi' }).closest('dd')!;
    expect(reported.textContent).toContain(en['moderation.deleted']);
    expect(reported.textContent).not.toContain(none);
  });

  it('names a person renamed since the report as they are now, and as the report found them', async () => {
    const { me, other } = await matchedPair(['Lia', 'Troll']);
    const filed = await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'fake_profile' } });
    expect(filed.status).toBe(201);
    const profile = (await api().get('/api/users/me/profile/', { token: other.token })).body;
    expect((await api().put('/api/users/me/profile/', { token: other.token, json: { ...profile, name: 'Angel' } })).status).toBe(200);
    const { me: another, other: same } = await matchedPair(['Mia', 'Sam']);
    const plain = await api().post('/api/reports/', { token: another.token, json: { user_id: same.id, reason: 'spam' } });
    expect(plain.status).toBe(201);
    await signInAsModerator();
    openReport(filed.body.id);
    await screen.findByRole('heading', { name: en['safety.reason.fake_profile'] });
    const reported = screen.getByText('Angel', { selector: 'dd > bdi' }).closest('dd')!;
    expect(reported.textContent).toContain(format(en['moderation.nameThen'], { name: 'Troll' }));
    // Not renamed: named once.
    cleanup();
    openReport(plain.body.id);
    await screen.findByRole('heading', { name: en['safety.reason.spam'] });
    expect(screen.getByText('Sam', { selector: 'dd > bdi' }).closest('dd')!.textContent).not.toContain(format(en['moderation.nameThen'], { name: 'Sam' }));
  });

  it('names the report whose ban resolved this one, in the moderator\'s language, and opens it', async () => {
    const { me, other } = await matchedPair(['Noa', 'Olaf']);
    const second = await makeCompletedUser(server);
    const decided = await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'spam' } });
    const alongside = await api().post('/api/reports/', { token: second.token, json: { user_id: other.id, reason: 'other' } });
    expect([decided.status, alongside.status]).toEqual([201, 201]);
    await api().post(`/api/moderation/reports/${decided.body.id}/resolve/`, { token: moderator.token, json: { action: 'ban' } });
    await signInAsModerator();
    const history = openReport(alongside.body.id);
    await screen.findByRole('heading', { name: en['safety.reason.other'] });
    const link = screen.getByRole('link', { name: format(en['moderation.resolvedWith'], { id: decided.body.id }) });
    fireEvent.click(link);
    expect(history.at(-1)).toBe(`/app/moderation/reports/${decided.body.id}/`);
    await screen.findByRole('heading', { name: en['safety.reason.spam'] });
    // The report the ban was decided on names none.
    expect(screen.queryByRole('link', { name: /#\d/ })).toBeNull();
  });

  it('says on a report decided with a ban that the ban was lifted since, and on none other', async () => {
    const { me, other } = await matchedPair(['Pia', 'Quin']);
    const banned = await banThroughModeration(server, moderator, other, me);
    expect(await unban(server.app.db, other.email)).toBe('changed');
    await signInAsModerator();
    openReport(banned);
    await screen.findByRole('heading', { name: en['safety.reason.spam'] });
    expect(screen.getByText(en['moderation.resolution.ban'], { exact: false }).closest('.resolution')?.textContent).toContain(en['moderation.banLifted']);
    cleanup();
    // Banned again since: the ban stands, and the page says nothing of one lifted.
    await banThroughModeration(server, moderator, other);
    openReport(banned);
    await screen.findByRole('heading', { name: en['safety.reason.spam'] });
    // (The page shows the report it held until the server's answer replaces it.)
    await waitFor(() => expect(screen.queryByText(en['moderation.banLifted'])).toBeNull());
  });

  it('reads the queue and a report again when the page comes back into view: what a colleague decided meanwhile shows', async () => {
    const { me, other } = await matchedPair(['Ivo', 'Jon']);
    const first = await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'spam' } });
    const second = await makeCompletedUser(server);
    const alongside = await api().post('/api/reports/', { token: second.token, json: { user_id: other.id, reason: 'harassment' } });
    await signInAsModerator();
    const history = openQueue();
    await screen.findByRole('link', { name: new RegExp(`${en['safety.reason.spam']}.*Jon`) });
    // The phone locked on the queue; a colleague dismisses one report meanwhile.
    const colleague = await makeModerator(server);
    await api().post(`/api/moderation/reports/${first.body.id}/resolve/`, { token: colleague.token, json: { action: 'dismiss' } });
    act(() => comeBack());
    await waitFor(() => expect(screen.queryByRole('link', { name: new RegExp(`${en['safety.reason.spam']}.*Jon`) })).toBeNull());

    // The other report open, the phone locked again; the colleague bans Jon on it.
    fireEvent.click(screen.getByRole('link', { name: new RegExp(`${en['safety.reason.harassment']}.*Jon`) }));
    await screen.findByRole('heading', { name: en['safety.reason.harassment'] });
    expect(history.at(-1)).toBe(`/app/moderation/reports/${alongside.body.id}/`);
    await api().post(`/api/moderation/reports/${alongside.body.id}/resolve/`, { token: colleague.token, json: { action: 'ban' } });
    act(() => comeBack());
    // Their decision, not a Ban button for a report already decided.
    await screen.findByText(en['moderation.resolution.ban']);
    expect(screen.queryByRole('button', { name: en['moderation.ban'] })).toBeNull();
  });

  it('keeps the reports shown with "Show more" when the queue is read again, less the ones decided meanwhile', async () => {
    const reported = await makeCompletedUser(server, { name: 'Quim' });
    const reporters = await Promise.all(Array.from({ length: 52 }, () => makeUser(server)));
    const snapshot = { profile: { name: 'Quim', bio: '', age: null, gender: null, photos: [] }, messages: [] };
    const made = await server.app.db
      .insert(reports)
      .values(reporters.map((reporter) => ({ reporterId: reporter.id, reportedId: reported.id, reason: 'spam' as const, snapshot })))
      .returning({ id: reports.id });
    await signInAsModerator();
    openQueue();
    fireEvent.click(await screen.findByRole('button', { name: en['moderation.more'] }));
    const rows = () => document.querySelectorAll('.report-row');
    await waitFor(() => expect(rows().length).toBeGreaterThan(50));
    const shown = rows().length;
    // The newest, listed last (past the first page), is dismissed by a colleague while the phone is locked.
    const newest = made.at(-1)!.id;
    expect(document.querySelector(`a[href="/app/moderation/reports/${newest}/"]`)).not.toBeNull();
    const colleague = await makeModerator(server);
    await api().post(`/api/moderation/reports/${newest}/resolve/`, { token: colleague.token, json: { action: 'dismiss' } });
    act(() => comeBack());
    await waitFor(() => expect(document.querySelector(`a[href="/app/moderation/reports/${newest}/"]`)).toBeNull());
    expect(rows()).toHaveLength(shown - 1);
    expect(document.querySelector(`a[href="/app/moderation/reports/${made.at(-2)!.id}/"]`)).not.toBeNull();
  });

  it('reads the queue again with Try again when reading it again failed, not the page after the list held', async () => {
    const { me, other } = await matchedPair(['Tea', 'Udo']);
    await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'spam' } });
    await signInAsModerator();
    openQueue();
    await waitFor(() => expect(document.querySelectorAll('.report-row').length).toBeGreaterThan(0));
    // Back in view, the server fails the queue's read.
    const isQueue = (input: RequestInfo | URL) => String(input).includes('/api/moderation/reports/?');
    const reachesServer = serverFails(isQueue);
    act(() => comeBack());
    expect((await screen.findByRole('alert')).textContent).toBe(en['error.generic']);
    expect(screen.queryByRole('button', { name: en['moderation.more'] })).toBeNull();

    const asked: string[] = [];
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      if (isQueue(input)) asked.push(String(input));
      return reachesServer(input, init);
    });
    fireEvent.click(screen.getByRole('button', { name: en['app.retry'] }));
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    // The list from its start, as the failed read asked it.
    expect(asked[0]).toBe('/api/moderation/reports/?status=open');
  });

  it('names the e-mail reminder\'s close button apart from Dismiss, the decision, in both languages', async () => {
    const { me, other } = await matchedPair(['Rut', 'Sam']);
    const reported = await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'spam' } });
    await signInAsModerator();
    // A moderator whose e-mail is not confirmed yet: the reminder is above the report.
    useSession.setState((state) => ({ user: { ...state.user!, email_verified: false } }));
    openReport(reported.body.id, { shell: true });
    await screen.findByRole('heading', { name: en['safety.reason.spam'] });
    screen.getByRole('region', { name: en['app.verifyTitle'] });
    // One "Dismiss" for a screen reader, the decision's; the reminder's × says what it hides.
    expect(screen.getAllByRole('button', { name: en['moderation.dismiss'] })).toHaveLength(1);
    screen.getByRole('button', { name: en['app.verifyDismiss'] });
    await act(() => useLanguage.getState().setLanguage('es'));
    expect(screen.getAllByRole('button', { name: es['moderation.dismiss'] })).toHaveLength(1);
    screen.getByRole('button', { name: es['app.verifyDismiss'] });
  });

  it('closes the confirm sheet, saying why, when the report is read again as decided by a colleague', async () => {
    const { me, other } = await matchedPair(['Lia', 'Max']);
    const reported = await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'spam' } });
    await signInAsModerator();
    openReport(reported.body.id);
    await screen.findByRole('heading', { name: en['safety.reason.spam'] });
    fireEvent.click(screen.getByRole('button', { name: en['moderation.ban'] }));
    screen.getByRole('dialog', { name: 'Ban Max?' });
    // The phone locked on the confirm step; a colleague dismisses the report meanwhile.
    const colleague = await makeModerator(server);
    await api().post(`/api/moderation/reports/${reported.body.id}/resolve/`, { token: colleague.token, json: { action: 'dismiss' } });
    // Never their decision with the sheet still over it, not even for one update of the page.
    let both = false;
    const watch = new MutationObserver(() => {
      both ||= document.querySelector('.resolution') !== null && document.querySelector('[role="dialog"]') !== null;
    });
    watch.observe(document.body, { childList: true, subtree: true });
    act(() => comeBack());
    await screen.findByText(en['moderation.resolution.dismiss']);
    watch.disconnect();
    expect(both).toBe(false);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByRole('alert').textContent).toBe(en['moderation.alreadyResolved']);
  });

  it('keeps the confirm sheet open, saying why, when Ban fails for another reason than a colleague\'s decision', async () => {
    const { me, other } = await matchedPair(['Ona', 'Pau']);
    const reported = await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'spam' } });
    await signInAsModerator();
    const history = openReport(reported.body.id);
    await screen.findByRole('heading', { name: en['safety.reason.spam'] });
    fireEvent.click(screen.getByRole('button', { name: en['moderation.ban'] }));
    // The server fails the decision.
    const reachesServer = serverFails((url) => url.includes('/resolve/'));
    fireEvent.click(screen.getAllByRole('button', { name: en['moderation.ban'] }).at(-1)!);
    const confirm = screen.getByRole('dialog', { name: 'Ban Pau?' });
    expect((await within(confirm).findByRole('alert')).textContent).toBe(en['error.generic']);
    // Another try from the same sheet goes through.
    vi.stubGlobal('fetch', reachesServer);
    fireEvent.click(within(confirm).getByRole('button', { name: en['moderation.ban'] }));
    await waitFor(() => expect(history.at(-1)).toBe('/app/moderation/'));
    expect((await api().get(`/api/moderation/reports/${reported.body.id}/`, { token: moderator.token })).body).toMatchObject({ status: 'resolved', resolution: 'ban' });
  });

  it('says when another moderator resolved the report first (409), and shows their decision', async () => {
    const { me, other } = await matchedPair(['Gia', 'Hal']);
    const reported = await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'spam' } });
    await signInAsModerator();
    openReport(reported.body.id);
    await screen.findByRole('heading', { name: en['safety.reason.spam'] });
    const colleague = await makeModerator(server);
    await api().post(`/api/moderation/reports/${reported.body.id}/resolve/`, { token: colleague.token, json: { action: 'dismiss', note: 'Handled.' } });

    fireEvent.click(screen.getByRole('button', { name: en['moderation.ban'] }));
    const confirm = screen.getByRole('dialog', { name: 'Ban Hal?' });
    expect(confirm.textContent).toContain(en['moderation.banText']);
    fireEvent.click(screen.getAllByRole('button', { name: en['moderation.ban'] }).at(-1)!);
    await screen.findByText(en['moderation.alreadyResolved']);
    await screen.findByText(en['moderation.resolution.dismiss']);
    expect(screen.getByText('Handled.')).toBeTruthy();
    // Hal was not banned by the late click.
    expect((await api().get('/api/users/me/', { token: other.token })).status).toBe(200);
  });

  it('says the account was deleted when Ban meets its deletion, and leaves Dismiss to close the report', async () => {
    const { me, other } = await matchedPair(['Ines', 'Gael']);
    const reported = await api().post('/api/reports/', { token: me.token, json: { user_id: other.id, reason: 'spam' } });
    await signInAsModerator();
    openReport(reported.body.id);
    await screen.findByRole('heading', { name: en['safety.reason.spam'] });
    expect((await api().delete('/api/users/me/', { token: other.token, json: { password: other.password } })).status).toBe(204);

    fireEvent.click(screen.getByRole('button', { name: en['moderation.ban'] }));
    fireEvent.click(screen.getAllByRole('button', { name: en['moderation.ban'] }).at(-1)!);
    await screen.findByText('This account has been deleted since: there is no one to ban. Dismiss the report to close it.');
    // Read again: still open, its person gone, Ban no longer offered.
    await waitFor(() => expect((screen.getByRole('button', { name: en['moderation.ban'] }) as HTMLButtonElement).disabled).toBe(true));
    expect(screen.getAllByText(new RegExp(en['moderation.deleted'])).length).toBeGreaterThan(0);
    expect((screen.getByRole('button', { name: en['moderation.dismiss'] }) as HTMLButtonElement).disabled).toBe(false);
  });
});
