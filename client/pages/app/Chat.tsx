import { type FormEvent, Fragment, type KeyboardEvent, memo, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { MESSAGE_MAX_LENGTH } from '../../../shared/constants';
import { fitPaste, maxUnits, textLength } from '../../../shared/text-length';
import { hasVisibleText } from '../../../shared/visible-text';
import { ChevronLeft, SendIcon } from '../../components/AppIcons';
import { Loading } from '../../components/Loading';
import { PartnerAvatar } from '../../components/PartnerAvatar';
import { SafetyMenu } from '../../components/SafetyMenu';
import { TryAgain } from '../../components/Waiting';
import { formatDay, formatTime, sameDay } from '../../lib/format';
import { logFailure, mayPass } from '../../lib/api';
import { withLinks } from '../../lib/links';
import { useServerMinutes } from '../../lib/server-clock';
import { useLanguage, useT, useTi, useTiText } from '../../lib/i18n';
import { lessMotion } from '../../lib/motion';
import { toast } from '../../lib/toast';
import { type LoadFailure, loadFailure, sendTyping, useConnection, useRetryWhenBackOnline } from '../../lib/socket';
import { chatToastKey, TYPING_VISIBLE_MS, useChat } from '../../stores/chat';
import { useConversations } from '../../stores/conversations';
import { usePresence } from '../../stores/presence';
import { useSession } from '../../stores/session';

const TYPING_SEND_EVERY_MS = 2000;
const LOAD_OLDER_WITHIN_PX = 80;
const STICK_TO_BOTTOM_PX = 120;
/**
 * The most messages a chat draws at once. Scrolled far back in a long one (thousands of messages), the
 * newest are let go of (drawn again on the way down): drawing every message ever scrolled past grew the
 * page by some 9 DOM nodes a message, without bound.
 */
export const CHAT_DRAWN = 300;
const CHAT_SHIFT = 50;

export function Chat({ id }: { id: number }) {
  const t = useT();
  const ti = useTi();
  const tiText = useTiText();
  const language = useLanguage((state) => state.language);
  // The days' headings are the server's: said again once its clock is heard.
  useServerMinutes();
  const me = useSession((state) => state.user?.id);
  const thread = useChat((state) => state.threads[id]);
  const partnerId = thread?.detail?.other_user_id;
  const partnerOnline = usePresence((state) => partnerId !== undefined && state.online.has(partnerId));
  // Queued with the socket up, a message is going out now, behind the ones written before it.
  const connected = useConnection((state) => state.connected);
  const ended = useChat((state) => state.ended[id]);
  const [, navigate] = useLocation();
  const draft = useChat((state) => state.drafts[id] ?? '');
  const { open, send, retry, takeBack, loadOlder, markRead, setDraft } = useChat.getState();
  /** `gone`: the server answered that it is not there (or not ours); `offline`: no answer; `server`: the server's own error. */
  const [failedToLoad, setFailedToLoad] = useState<'gone' | LoadFailure | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  const listRef = useRef<HTMLOListElement>(null);
  const composerRef = useRef<HTMLTextAreaElement>(null);
  const lastTypingSent = useRef(0);
  /**
   * A message drawn before and after the drawn messages move, and where it was: the reader stays put.
   * With the newest message's id then: one that comes before they move is still said below.
   */
  const anchor = useRef<[HTMLElement, number, number | undefined] | null>(null);
  /** The oldest message drawn (its id); null: the newest CHAT_DRAWN. */
  const [first, setFirst] = useState<number | null>(null);
  const nearBottom = useRef(true);
  /**
   * The list's height as the resize observer below last saw it. A scroll event that comes between a
   * resize and that observer (the keyboard opening: the browser runs scroll steps first) finds the
   * newest message below a list not yet kept at its bottom: the list moved there, not the reader.
   */
  const observedHeight = useRef<number | null>(null);
  /** The page of older messages did not come: its row says why, and the server's error offers Try again. */
  const [olderFailed, setOlderFailed] = useState<LoadFailure | null>(null);
  /** The partner wrote while the reader was up in the history: "New messages" takes them down. */
  const [newBelow, setNewBelow] = useState(false);
  /** The last paste did not fit whole: the composer's maxLength cut it, silently but for this. */
  const [pasteCut, setPasteCut] = useState(false);

  // A toast of a message in this chat, raised on the page before, would cover the message it shows.
  useEffect(() => toast.dismissMessages(chatToastKey(id)), [id]);

  // The conversation ended (match:removed): back to the list, which says so calmly unless we ended it.
  useEffect(() => {
    if (!ended) return;
    if (!ended.byMe) useConversations.getState().showEndedNotice({ conversationId: id, name: ended.name, userId: ended.userId });
    navigate('/app/matches/', { replace: true });
  }, [ended, navigate]);

  useEffect(() => {
    if (useChat.getState().ended[id]) return;
    open(id).catch((error: unknown) => {
      // Refused (a 404: the chat ended, or was never ours) is what the screen says; only a failure is logged.
      const gone = !mayPass(error);
      if (!gone) logFailure('Could not open conversation', error);
      setFailedToLoad(gone ? 'gone' : loadFailure(error));
    });
  }, [id, open, attempt]);
  const openAgain = () => {
    setFailedToLoad(null);
    setAttempt((count) => count + 1);
  };
  useRetryWhenBackOnline(failedToLoad === 'offline' || failedToLoad === 'server', openAgain);
  // A page of older messages that did not come (no network) is asked for again once back online, if the
  // reader still waits at the top: there, no scroll of theirs would ask.
  useRetryWhenBackOnline(Boolean(thread?.older), () => listRef.current?.dispatchEvent(new Event('scroll')));

  const messages = thread?.messages ?? [];
  const newest = messages.at(-1);
  const lastId = newest?.id;
  // What a read is for: not always the newest message, as a catch-up may bring one of the partner's
  // older than mine sent meanwhile (queued with no network, acknowledged first).
  const lastFromPartner = messages.findLast((message) => message.sender !== me)?.id;
  const lastStatus = newest?.status;
  let start = first === null ? -1 : messages.findIndex((message) => message.id === first);
  if (start < 0) start = Math.max(0, messages.length - CHAT_DRAWN);
  const end = Math.min(messages.length, start + CHAT_DRAWN);
  const shift = (to: number | null, element?: Element | null) => {
    if (element instanceof HTMLElement) anchor.current = [element, element.offsetTop, lastId];
    setFirst(to);
  };
  // [conversation, its newest message once loaded]: what came after is said as it comes (below), not the
  // history it opened on.
  const heardAfter = useRef<[number, number]>([0, 0]);
  if (thread?.loaded && heardAfter.current[0] !== id) heardAfter.current = [id, lastId ?? 0];

  // Reading the thread: tell the partner, and clear the unread badge, once its newest message is on
  // screen (the tab in front, the list at its bottom); again when the tab comes back, or the reader
  // scrolls down to it. Not while some of its messages wait for the network (`missingEarlier`):
  // unseen, they stay unread.
  const readable = Boolean(thread?.loaded) && !thread?.missingEarlier;
  // A read of the lists asked before this chat's read reached the server may answer after it, still
  // counting what is read here as unread: it is read again, or Chats says so once the reader leaves.
  const listedUnread = useConversations((state) => Boolean(state.started?.find((item) => item.id === id)?.unread_count));
  const readIfSeen = useRef(() => {});
  readIfSeen.current = () => {
    if (!readable || !nearBottom.current || document.visibilityState !== 'visible') return;
    markRead(id);
    useConversations.getState().markRead(id);
  };
  useEffect(() => {
    const read = () => readIfSeen.current();
    read();
    document.addEventListener('visibilitychange', read);
    return () => document.removeEventListener('visibilitychange', read);
  }, [id, lastId, lastFromPartner, readable, listedUnread]);

  // Keep the newest message in view, or keep the reader's place when older ones are prepended.
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list) return;
    if (anchor.current) {
      const [element, at, newestThen] = anchor.current;
      list.scrollTop += element.offsetTop - at;
      // Held until the older page comes: a message that comes first, below, is no move of the drawn ones.
      if (thread?.loadingOlder) anchor.current[1] = element.offsetTop;
      else anchor.current = null;
      // The partner wrote while a page of older messages was on its way: "New messages" says so.
      if (lastId === newestThen) return;
    }
    if (nearBottom.current) {
      list.scrollTop = list.scrollHeight;
      // Down at the newest (a message of one's own sent from up in the history takes the reader there).
      setNewBelow(false);
    } else if (messages[messages.length - 1]?.sender !== me) setNewBelow(true);
  }, [messages.length, lastId, lastStatus, first]);

  // The list's height changes under the reader (the phone's keyboard opens, a banner shows above): the
  // newest message stays in view if it was.
  const hasDetail = Boolean(thread?.detail);
  useEffect(() => {
    const list = listRef.current;
    if (!list) return;
    const resized = () => {
      observedHeight.current = list.clientHeight;
      if (nearBottom.current) list.scrollTop = list.scrollHeight;
    };
    resized();
    const observer = new ResizeObserver(resized);
    observer.observe(list);
    return () => observer.disconnect();
  }, [hasDetail]);

  // The composer is as tall as what is written, up to its max-height (six lines, app.css), then
  // scrolls; the list gives it the room, keeping the newest message in view if it was.
  useLayoutEffect(() => {
    const composer = composerRef.current;
    if (!composer) return;
    composer.style.height = 'auto';
    const style = getComputedStyle(composer);
    const borders = Number.parseFloat(style.borderTopWidth) + Number.parseFloat(style.borderBottomWidth);
    composer.style.height = `${composer.scrollHeight + borders}px`;
    const list = listRef.current;
    if (list && nearBottom.current) list.scrollTop = list.scrollHeight;
  }, [draft, hasDetail]);

  // The typing line hides itself TYPING_VISIBLE_MS after the last typing event.
  const typingAt = thread?.typingAt ?? 0;
  useEffect(() => {
    const remaining = typingAt + TYPING_VISIBLE_MS - Date.now();
    if (remaining <= 0) return;
    setNow(Date.now());
    const timer = setTimeout(() => setNow(Date.now()), remaining);
    return () => clearTimeout(timer);
  }, [typingAt]);
  const partnerTyping = typingAt > 0 && now - typingAt < TYPING_VISIBLE_MS;

  if (ended) return null;
  if (failedToLoad) {
    return (
      <section className="page">
        <Link href="/app/matches" className="back-link">
          <ChevronLeft /> {t('chat.back')}
        </Link>
        <p className="center-text muted" role="status">
          {t(failedToLoad === 'gone' ? 'chat.notFound' : failedToLoad === 'offline' ? 'chat.offline' : 'error.generic')}
        </p>
        {failedToLoad !== 'gone' && <TryAgain onRetry={openAgain} />}
      </section>
    );
  }
  if (!thread?.detail) return <Loading />;
  const { detail } = thread;

  function onScroll() {
    const list = listRef.current;
    if (!list) return;
    const wasNearBottom = nearBottom.current;
    const down = list.scrollHeight - list.scrollTop - list.clientHeight < STICK_TO_BOTTOM_PX;
    if (list.clientHeight === observedHeight.current) nearBottom.current = down && end === messages.length;
    if (nearBottom.current && !wasNearBottom) {
      setNewBelow(false);
      readIfSeen.current();
    }
    // The messages drawn are looked up only when the window moves, by the one kept in place: not at
    // every scroll event.
    if (list.scrollTop < LOAD_OLDER_WITHIN_PX) {
      const top = list.querySelector('.message');
      if (start > 0) shift(messages[Math.max(0, start - CHAT_SHIFT)]!.id, top);
      else if (thread?.older && !thread.loadingOlder) loadOlderPage(top);
    } else if (down && first !== null) {
      const drawn = list.querySelectorAll('.message');
      shift(end + CHAT_SHIFT < messages.length ? messages[start + CHAT_SHIFT]!.id : null, drawn[drawn.length - 1]);
    }
  }

  /** The page of messages before the oldest held, the reader kept in place (at `top`, the oldest drawn). */
  function loadOlderPage(top: Element | null) {
    setOlderFailed(null);
    shift(first, top);
    loadOlder(id).then(
      () => {
        const held = useChat.getState().threads[id]?.messages ?? [];
        const to = held.length > CHAT_DRAWN ? held[0]!.id : null;
        // All of it drawn already: no move, and no anchor left to hold back the next message's scroll.
        if (to !== first) shift(to, top);
      },
      (error: unknown) => {
        anchor.current = null;
        setOlderFailed(loadFailure(error));
      },
    );
  }

  function onDraft(value: string) {
    setDraft(id, value);
    const at = Date.now();
    if (value && at - lastTypingSent.current > TYPING_SEND_EVERY_MS) {
      lastTypingSent.current = at;
      sendTyping(id);
    }
  }

  // On a touch screen, Return starts a new line and the send button sends, as in the phone's own
  // messaging apps: its keyboard has no Shift+Enter, and a message of several lines could not be
  // written otherwise. With a hardware keyboard (a fine pointer), Enter sends and Shift+Enter starts a
  // new line.
  const touch = globalThis.matchMedia?.('(pointer: coarse)').matches;

  // Not while an input method is still composing a word (Enter there picks the word), and with nothing
  // written it does nothing, as the send button, disabled then, would (no "fill out this field" bubble).
  function onComposerKey(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (touch || event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    if (hasVisibleText(draft)) event.currentTarget.form?.requestSubmit();
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const content = draft.trim();
    if (!hasVisibleText(content)) return;
    setDraft(id, '');
    lastTypingSent.current = 0;
    nearBottom.current = true;
    setFirst(null);
    void send(id, content);
  }

  const length = textLength(draft);
  const nearTheLimit = length > MESSAGE_MAX_LENGTH - 100;
  // Said while what was cut is what stands: once shortened or sent, the draft speaks for itself.
  const cutShown = pasteCut && length >= MESSAGE_MAX_LENGTH;
  // "Read" goes under the newest of one's own messages the partner has read, once: newer ones of one's
  // own, unread, leave it there, so that it still says how far the partner has read.
  const lastOwnRead = messages.findLast((message) => message.sender === me && message.id > 0 && message.id <= thread.partnerReadId);
  // Held by the limit on sends, each waiting message says it goes in a moment; a burst the user wrote
  // says why once, under its newest bubble (not one the app sent, its offline queue).
  const lastHeld = messages.findLast((message) => message.slowDown);

  return (
    <section className="chat">
      <header className="chat-header">
        <Link href="/app/matches" className="icon-btn" aria-label={t('chat.back')}>
          <ChevronLeft />
        </Link>
        {/* Their profile again, as on the deck: the avatar and the name lead to it. */}
        <Link
          href={`/app/profiles/${detail.other_user_id}`}
          className="chat-title"
          aria-label={tiText('deck.openProfile', { name: detail.name })}
          style={{ display: 'flex', alignItems: 'center', gap: 10, color: 'inherit', textDecoration: 'none' }}
        >
          <PartnerAvatar userId={detail.other_user_id} name={detail.name} image={detail.image} size={40} />
          <div style={{ minWidth: 0 }}>
            <h1>
              <bdi>{detail.name}</bdi>
            </h1>
            {partnerOnline && <p className="chat-status">{t('presence.onlineNow')}</p>}
          </div>
        </Link>
        <SafetyMenu person={{ id: detail.other_user_id, name: detail.name }} conversationId={id} leaveTo="/app/matches/" />
      </header>
      {/* Not a live region itself, which would read it all out: only the partner's newest message, once. */}
      <ol className="messages" ref={listRef} onScroll={onScroll} aria-label={t('chat.messages')}>
        {/* Above the messages while there are older ones, not only while they load: its coming would move them. */}
        {thread.older && (
          <li className="muted center-text">
            {t(olderFailed === 'server' ? 'error.generic' : olderFailed === 'offline' ? 'chat.earlierOffline' : 'chat.loadingOlder')}
            {olderFailed === 'server' && <TryAgain onRetry={() => loadOlderPage(listRef.current?.querySelector('.message') ?? null)} />}
          </li>
        )}
        {thread.missingEarlier && <li className="muted center-text">{t('chat.earlierOffline')}</li>}
        {messages.length === 0 && !thread.missingEarlier && <li className="muted center-text empty-text">{t('chat.empty')}</li>}
        {messages.slice(start, end).map((message, index) => {
          const own = message.sender === me;
          // A conversation begun at a party goes on for days: each day opens with its heading.
          const firstOfDay = index === 0 || !sameDay(messages[start + index - 1]!.time, message.time);
          return (
            <Fragment key={message.client_id ?? message.id}>
              {firstOfDay && (
                <li className="day-separator">
                  <time dateTime={message.time}>{formatDay(message.time, language)}</time>
                </li>
              )}
              <li className={`message ${own ? 'message-own' : 'message-partner'} is-${message.status}`} data-testid="message">
                {/* Who wrote it, which the screen says by its side and colour. */}
                <span className="sr-only">{own ? t('chat.you') : detail.name}: </span>
                {/* A message in Arabic or Hebrew reads right to left, whatever the app's language. */}
                <p className="message-content" dir="auto">
                  <MessageText content={message.content} />
                </p>
                <p className="message-meta">
                  <time dateTime={message.time}>{formatTime(message.time, language)}</time>
                  {message.status === 'sending' && <span> · {t('chat.sending')}</span>}
                  {message.status === 'queued' && <span> · {t(message.slowDown ? (message === lastHeld && message.slowDown === 'typed' ? 'chat.slowDown' : 'chat.held') : connected ? 'chat.sending' : 'chat.queued')}</span>}
                  {message === lastOwnRead && <span> · {t('chat.read')}</span>}
                </p>
                {/* Refused for a reason that may pass, it may be sent again; refused for good (what it says), it
                    goes back to the composer, not to be lost. */}
                {message.status === 'failed' && message.client_id && (
                  <p className="message-failed" role="alert">
                    {t('chat.failed')}{' '}
                    <button
                      type="button"
                      className="link-btn"
                      onClick={() => {
                        if (message.retryable) return void retry(id, message.client_id!);
                        takeBack(id, message.client_id!);
                        composerRef.current?.focus();
                      }}
                    >
                      {t(message.retryable ? 'chat.retry' : 'chat.edit')}
                    </button>
                  </p>
                )}
              </li>
            </Fragment>
          );
        })}
        {/* Read meanwhile on another of my phones or tabs: nothing new below. */}
        {newBelow && lastFromPartner! > thread.ownReadId && (
          <li className="new-below">
            <button
              type="button"
              className="btn btn-light"
              onClick={(event) => {
                nearBottom.current = true;
                setFirst(null);
                listRef.current?.scrollTo({ top: listRef.current.scrollHeight, behavior: lessMotion() ? 'auto' : 'smooth' });
                // Used by keyboard (no pointer: detail 0), it goes as it is used: the composer takes the focus
                // rather than the page. A tap leaves the phone's keyboard down.
                if (event.detail === 0) composerRef.current?.focus({ preventScroll: true });
              }}
            >
              {t('chat.newBelow')} ↓
            </button>
          </li>
        )}
      </ol>
      <p className="sr-only" aria-live="polite">
        {newest && newest.sender !== me && heardAfter.current[0] === id && newest.id > heardAfter.current[1] ? `${detail.name}: ${newest.content}` : ''}
      </p>
      <p className="typing" aria-live="polite">
        {partnerTyping ? ti('chat.typing', { name: detail.name }) : ''}
      </p>
      {cutShown && (
        <p className="composer-cut" role="status">
          {t('chat.pasteCut', { max: MESSAGE_MAX_LENGTH.toLocaleString(language) })}
        </p>
      )}
      <form className="composer" onSubmit={submit}>
        <textarea
          ref={composerRef}
          rows={1}
          dir="auto"
          value={draft}
          onChange={(event) => onDraft(event.target.value)}
          onKeyDown={onComposerKey}
          onPaste={(event) => setPasteCut(fitPaste(event))}
          placeholder={t('chat.placeholder')}
          aria-label={t('chat.placeholder')}
          required
          maxLength={maxUnits(draft, MESSAGE_MAX_LENGTH)}
          autoComplete="off"
          enterKeyHint={touch ? 'enter' : 'send'}
        />
        {/* Near the limit, how much is left: a paste longer than it is cut there, and says so. Its numbers
            written as that notice writes them (2,000 in English). */}
        {nearTheLimit && (
          <span className="composer-count">
            {length.toLocaleString(language)}/{MESSAGE_MAX_LENGTH.toLocaleString(language)}
          </span>
        )}
        {/* A tap on Send leaves the focus in the text box: the phone's keyboard stays up for the next message.
            Pressed from the keyboard (no pointer: detail 0), the focus goes there too: the button, disabled
            once the draft is sent, would drop it to the page. */}
        <button
          type="submit"
          className="round-btn round-btn-send"
          aria-label={t('chat.send')}
          disabled={!hasVisibleText(draft)}
          onMouseDown={(event) => event.preventDefault()}
          onClick={(event) => event.detail || composerRef.current?.focus()}
        >
          <SendIcon />
        </button>
      </form>
    </section>
  );
}

/**
 * A message's text with its web and e-mail addresses as links (a handle's page, the venue's map),
 * opened in a new tab so the chat stays where it was; `nofollow ugc`: written by users, not vouched for.
 * Each link is set apart in its own direction: in a right-to-left message, an address's closing slash
 * moved to its start ("/https://x.com/fiesta").
 * Memoized: the chat renders again at every keystroke in the composer, its messages' text does not change.
 */
const MessageText = memo(function MessageText({ content }: { content: string }) {
  return (
    <>
      {withLinks(content).map((part, index) =>
        part.href ? (
          <a key={index} href={part.href} dir="auto" target="_blank" rel="noopener noreferrer nofollow ugc">
            {part.text}
          </a>
        ) : (
          <Fragment key={index}>{part.text}</Fragment>
        ),
      )}
    </>
  );
});
