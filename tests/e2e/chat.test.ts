/**
 * Chat behaviour that only a real browser and a real socket can show: older pages on scrolling up,
 * read receipts (under the newest message the partner has read), Return on a phone and Enter on a
 * laptop, a refused send that is retried once (no duplicate), a send written offline that goes
 * out by itself when the socket is back, and catch-up of a message sent while the socket was down.
 */
import type { Page, Route } from 'playwright-core';
import { inArray, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../server/db/schema';
import { en } from '../../shared/i18n/en';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { type ClientSocket, connect } from '../helpers/socket';
import { match } from '../realtime/fixtures';
import { entryAnimationsDone, hasChromium, holdSocketUntil, keepShot, middayZone, opening, openLaptop, openPhone, PHONE } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

describe.skipIf(!ready)('chat in the browser (Chromium, 390×844, English)', { timeout: 90_000 }, () => {
  // The history below is seeded through the API faster than a person types: not a test of the limit.
  const app = appInChromium({ limits: { 'message:send': { max: 1000, windowMs: 10_000 } } });
  let page: Page;
  let ana: TestUser;
  let ben: TestUser;
  let benSocket: ClientSocket;
  let conversationId: number;
  /** While true, Ana's tab cannot open its socket (`goOffline`). */
  let socketBlocked = false;
  const api = () => client(app.server.url);
  /** Sends what is written as on a phone, by its send button (its Return starts a new line). */
  const tapSend = () => page.getByRole('button', { name: en['chat.send'], exact: true }).tap();
  const stored = async () =>
    (await api().get(`/api/conversations/${conversationId}/messages/?limit=100`, { token: ben.token })).body.results as Array<{ id: number; content: string }>;

  beforeAll(async () => {
    ana = await makeCompletedUser(app.server, { name: 'Ana', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Ana' });
    ben = await makeCompletedUser(app.server, { name: 'Ben', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Ben' });
    await api().post('/api/matching/', { token: ben.token, json: { response: 'like', other: ana.id } });
    const matched = await api().post('/api/matching/', { token: ana.token, json: { response: 'like', other: ben.id } });
    conversationId = matched.body.conversation_id;
    // 60 messages: more than one page of 50.
    const sentIds: number[] = [];
    for (let i = 1; i <= 60; i += 1) {
      const sent = await api().post(`/api/conversations/${conversationId}/messages/`, { token: i % 2 ? ben.token : ana.token, json: { content: `history ${i}` } });
      expect(sent.status).toBe(201);
      sentIds.push(sent.body.id);
    }
    // The first ten were written three days ago: the conversation spans two days.
    await app.server.app.db
      .update(messages)
      .set({ createdAt: sql`${messages.createdAt} - interval '3 days'` })
      .where(inArray(messages.id, sentIds.slice(0, 10)));
    benSocket = await connect(app.server.url, ben.token);
    // While `socketBlocked`, the server turns Ana's tab away at the handshake (as an instance that cannot
    // take it would): the tab keeps trying, and has no socket until it is lifted.
    app.server.app.io.use((socket, next) => (socketBlocked && socket.data.user?.id === ana.id ? next(new Error('unavailable')) : next()));

    // In a zone where it is midday: the history written above is still "Today" when its headings are
    // checked, whenever the suite runs (across a midnight, in UTC or the machine's zone, the chat
    // rightly headed it "Yesterday"), and three days ago is the weekday the test computes.
    ({ page } = await openPhone(app.browser, { token: ana.token, language: 'en' }, { timezoneId: middayZone() }));
  }, 120_000);

  afterAll(async () => {
    benSocket?.close();
  });

  it('lists the conversation with its last message, filters by name, and opens the newest page', async () => {
    await page.goto(`${app.server.url}/app/matches/`);
    const row = page.locator('.conversation-list').getByRole('link', { name: /Ben/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('history 60');
    // Ben's socket is open: his avatar wears the online dot.
    await row.getByRole('img', { name: 'Ben is online' }).waitFor();
    await page.getByPlaceholder(en['matches.search']).fill('zzz');
    await page.getByText('No results for "zzz"').waitFor();
    // Said once, for both lists.
    expect(await page.getByText('No results for "zzz"').count()).toBe(1);
    await page.getByPlaceholder(en['matches.search']).fill('be');
    await row.waitFor();
    // Found among the conversations, though among no new matches: no "no results" above him.
    expect(await page.getByText('No results for "be"').count()).toBe(0);
    await keepShot(page, 'chat-01-matches-en');

    await row.click();
    await page.locator('.message', { hasText: 'history 60' }).waitFor();
    await expect.poll(() => page.locator('.message-content').count()).toBe(50);
    expect(await page.locator('.message-content').getByText('history 5', { exact: true }).count()).toBe(0);
  });

  it('loads older messages when scrolled to the top, keeping them in order', async () => {
    // The older page takes a while (a venue's Wi-Fi): what the reader sees stays put while it loads.
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const older = /\/api\/conversations\/\d+\/messages\/\?.*cursor=/;
    await page.route(older, async (route) => {
      await answered;
      await route.continue();
    });
    const asked = page.waitForRequest(older);
    // By the message's words alone: its whole text runs on into its time ("history 1" and "10:12 AM"
    // read "history 110:12 AM", which holds "history 11").
    const topOf = (text: string) =>
      page
        .locator('.message')
        .filter({ has: page.locator('.message-content').getByText(text, { exact: true }) })
        .evaluate((message) => message.getBoundingClientRect().top);
    const atTheTop = await page.locator('.messages').evaluate((list) => {
      list.scrollTop = 0;
      return [...list.querySelectorAll('.message')].find((message) => message.querySelector('.message-content')?.textContent === 'history 11')!.getBoundingClientRect().top;
    });
    await asked;
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    expect(await topOf('history 11')).toBe(atTheTop);
    answer();
    await page.locator('.message-content').getByText('history 1', { exact: true }).waitFor();
    await page.unroute(older);
    // Once they are in, above it: the reader is where they were (to the pixel the scroll can take).
    expect(Math.abs((await topOf('history 11')) - atTheTop)).toBeLessThan(1);
    const texts = await page.locator('.message-content').allTextContents();
    expect(texts).toEqual(Array.from({ length: 60 }, (_, i) => `history ${i + 1}`));
    // Own messages right, the partner's left.
    expect(await page.locator('.message-own .message-content').getByText('history 2', { exact: true }).count()).toBe(1);
    expect(await page.locator('.message-partner .message-content').getByText('history 1', { exact: true }).count()).toBe(1);
    expect(await page.locator('.message-partner .message-content').getByText('history 2', { exact: true }).count()).toBe(0);

    // Each day opens with its heading: three days ago's weekday before the first ten, then today. That
    // weekday is the first message's own, as the server dated it, not the browser's clock's.
    const threeDaysAgo = await page
      .locator('.messages .message-meta time')
      .first()
      .evaluate((time) => new Intl.DateTimeFormat('en', { weekday: 'long' }).format(new Date(time.getAttribute('datetime')!)));
    const items = await page
      .locator('.messages > li.day-separator, .messages > li.message')
      .evaluateAll((lis) => lis.map((li) => (li.classList.contains('day-separator') ? `# ${li.textContent}` : li.querySelector('.message-content')?.textContent)));
    expect(items.filter((item) => item?.startsWith('# '))).toEqual([`# ${threeDaysAgo}`, '# Today']);
    expect(items.slice(0, 2)).toEqual([`# ${threeDaysAgo}`, 'history 1']);
    expect(items.slice(11, 13)).toEqual(['# Today', 'history 11']);
    await page.locator('.messages').evaluate((list) => (list.scrollTop = 0));
    await keepShot(page, 'chat-01b-days');
    // Sixty messages scroll in their list; the page itself is the screen's height, so a swipe on the
    // header or the composer cannot move the chat away.
    expect(await page.evaluate(() => document.scrollingElement!.scrollHeight)).toBe(PHONE.height);
  });

  it('shows the partner online in the chat header, and not once they leave', async () => {
    await page.locator('.chat-header').getByText(en['presence.onlineNow']).waitFor();
    expect(await page.locator('.chat-header').getByRole('img', { name: 'Ben is online' }).count()).toBe(1);
    await keepShot(page, 'chat-02-online');
    benSocket.close();
    await page.locator('.chat-header').getByText(en['presence.onlineNow']).waitFor({ state: 'detached' });
    expect(await page.locator('.chat-header .online-dot').count()).toBe(0);
    benSocket = await connect(app.server.url, ben.token);
    await page.locator('.chat-header').getByText(en['presence.onlineNow']).waitFor();
  });

  it('shows "Read" once the partner has read our message, under the newest he has read', async () => {
    await page.getByPlaceholder(en['chat.placeholder']).fill('read me');
    await tapSend();
    // The text box keeps the focus (and the phone its keyboard) for the next message.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(en['chat.placeholder']);
    const mine = page.locator('.message-own', { hasText: 'read me' });
    await expect.poll(() => mine.getAttribute('class')).toContain('is-sent');
    const last = (await stored())[0]!;
    expect(last.content).toBe('read me');
    expect(await mine.locator('.message-meta').textContent()).not.toContain(en['chat.read']);
    benSocket.emit('message:read', { conversation_id: conversationId, last_read_id: last.id });
    await expect.poll(() => mine.locator('.message-meta').textContent()).toContain(en['chat.read']);
    await keepShot(page, 'chat-03-read');
    // Opened afresh, the chat knows from the server how far Ben has read.
    await page.reload();
    await mine.waitFor();
    await expect.poll(() => mine.locator('.message-meta').textContent()).toContain(en['chat.read']);

    // She writes twice more, unread yet: the mark stays where he has read to, the one mark there is.
    const marks = page.locator('.message-meta span', { hasText: en['chat.read'] });
    for (const content of ['one more', 'and another']) {
      await page.getByPlaceholder(en['chat.placeholder']).fill(content);
      await tapSend();
      await expect.poll(() => page.locator('.message-own', { hasText: content }).getAttribute('class')).toContain('is-sent');
    }
    expect(await mine.locator('.message-meta').textContent()).toContain(en['chat.read']);
    expect(await marks.count()).toBe(1);
    await keepShot(page, 'chat-03b-read-then-more');
    // He reads them: the mark goes down to the newest.
    const newest = (await stored())[0]!;
    expect(newest.content).toBe('and another');
    benSocket.emit('message:read', { conversation_id: conversationId, last_read_id: newest.id });
    const another = page.locator('.message-own', { hasText: 'and another' });
    await expect.poll(() => another.locator('.message-meta').textContent()).toContain(en['chat.read']);
    expect(await marks.count()).toBe(1);
  });

  /**
   * Takes the tab's socket down and keeps it down until `socketBack`, with the HTTP send answered
   * by `httpSend`.
   */
  async function goOffline(httpSend: (route: Route) => Promise<void>) {
    await page.route('**/api/conversations/*/messages/', (route) => (route.request().method() === 'POST' ? httpSend(route) : route.continue()));
    await page.locator('.chat-header').getByText(en['presence.onlineNow']).waitFor();
    socketBlocked = true;
    app.server.app.io.in(`user:${ana.id}`).disconnectSockets(true);
    await page.getByText(en['app.offline']).waitFor();
    // Offline, Ana cannot know who is online: Ben's "Online" goes until her socket is back.
    await page.locator('.chat-header').getByText(en['presence.onlineNow']).waitFor({ state: 'detached' });
  }
  async function socketBack() {
    await page.unroute('**/api/conversations/*/messages/');
    socketBlocked = false;
  }
  // A test that fails offline does not leave the next ones offline too.
  afterEach(socketBack);

  it('marks a send the server refuses as not sent, and Retry stores it exactly once', async () => {
    await goOffline((route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ detail: 'Service unavailable.' }) }),
    );
    await page.getByPlaceholder(en['chat.placeholder']).fill('try again');
    await tapSend();
    const failed = page.locator('.message.is-failed', { hasText: 'try again' });
    await failed.waitFor();
    await keepShot(page, 'chat-04-failed');

    // Retry while the socket is still away (the send goes over HTTP, answered now): a message refused
    // for a passing reason is also sent again by itself once the socket is back, which a Retry pressed
    // after the socket's return could find done already.
    await page.unroute('**/api/conversations/*/messages/');
    await failed.getByRole('button', { name: en['chat.retry'] }).click();
    await expect.poll(() => page.locator('.message-own', { hasText: 'try again' }).getAttribute('class')).toContain('is-sent');
    await socketBack();
    await page.locator('.chat-header').getByText(en['presence.onlineNow']).waitFor();
    expect((await stored()).filter((message) => message.content === 'try again')).toHaveLength(1);
  });

  it('keeps a message written with no connection at all, through a reload, and sends it once the socket is back', async () => {
    // No socket, and no answer over HTTP either (the phone's Wi-Fi is gone).
    await goOffline((route) => route.abort('internetdisconnected'));
    await page.getByPlaceholder(en['chat.placeholder']).fill('written offline');
    await tapSend();
    const mine = page.locator('.message-own', { hasText: 'written offline' });
    await mine.getByText(en['chat.queued']).waitFor();
    expect(await mine.getAttribute('class')).toContain('is-queued');
    expect(await mine.getByRole('button', { name: en['chat.retry'] }).count()).toBe(0);
    await keepShot(page, 'chat-04b-queued');
    // The phone closes the tab meanwhile: the app opened again still holds it.
    await page.reload();
    await mine.getByText(en['chat.queued']).waitFor();
    expect((await stored()).filter((message) => message.content === 'written offline')).toHaveLength(0);

    await socketBack();
    await expect.poll(() => mine.getAttribute('class'), { timeout: 15_000 }).toContain('is-sent');
    expect((await stored()).filter((message) => message.content === 'written offline')).toHaveLength(1);
    await page.locator('.chat-header').getByText(en['presence.onlineNow']).waitFor();
  });

  it('catches up after a reconnect with a message sent while the socket was down', async () => {
    await page.getByText(en['app.offline']).waitFor({ state: 'detached' });
    app.server.app.io.in(`user:${ana.id}`).disconnectSockets(true);
    // Sent while Ana's socket is closed: only the catch-up after reconnecting can bring it.
    const sent = await api().post(`/api/conversations/${conversationId}/messages/`, { token: ben.token, json: { content: 'while you were away' } });
    expect(sent.status).toBe(201);
    await page.locator('.message-partner', { hasText: 'while you were away' }).waitFor();
    await page.getByText(en['app.offline']).waitFor({ state: 'detached' });
    expect(await page.locator('.message', { hasText: 'while you were away' }).count()).toBe(1);
    await keepShot(page, 'chat-05-caught-up');
  });

  it('catches up with what the partner wrote while the socket was down, though her own message went over HTTP meanwhile', async () => {
    await page.getByText(en['app.offline']).waitFor({ state: 'detached' });
    await goOffline((route) => route.continue());
    // Ben writes while Ana's socket is down (its push reaches no one), then Ana answers over HTTP:
    // her message is stored after his, and her chat holds it, not his.
    const missed = await api().post(`/api/conversations/${conversationId}/messages/`, { token: ben.token, json: { content: 'missed while down' } });
    expect(missed.status).toBe(201);
    await page.getByPlaceholder(en['chat.placeholder']).fill('answered over http');
    await tapSend();
    await expect.poll(() => page.locator('.message-own', { hasText: 'answered over http' }).getAttribute('class')).toContain('is-sent');
    expect(await page.locator('.message', { hasText: 'missed while down' }).count()).toBe(0);

    await socketBack();
    await page.getByText(en['app.offline']).waitFor({ state: 'detached' });
    await page.locator('.message-partner', { hasText: 'missed while down' }).waitFor();
    // In the order they were stored: his, then hers.
    const order = await page.locator('.message').allTextContents();
    const his = order.findIndex((text) => text.includes('missed while down'));
    expect(his).toBeGreaterThanOrEqual(0);
    expect(order.findIndex((text) => text.includes('answered over http'))).toBe(his + 1);
  });

  /**
   * From here on, Ana's socket goes through a link the test can cut without the phone knowing (a Wi-Fi
   * that lost its way out): frames are neither passed nor refused. Each connection has a link of its
   * own; `cutLinks` cuts those open now.
   */
  const links: Array<{ cut: boolean }> = [];
  const cutLinks = () => links.forEach((link) => (link.cut = true));
  /** Every frame Ana's tab has sent through a link, in order. */
  const framesSent: string[] = [];
  async function throughLinks() {
    if (links.length > 0) return;
    await page.routeWebSocket(/\/socket\.io\//, (ws) => {
      const link = { cut: false };
      links.push(link);
      const server = ws.connectToServer();
      ws.onMessage((message) => {
        framesSent.push(String(message));
        if (!link.cut) server.send(message);
      });
      server.onMessage((message) => {
        if (!link.cut) ws.send(message);
      });
    });
    // Playwright routes the sockets of a page loaded after the route is set.
    await page.reload();
    await expect.poll(() => links.length).toBe(1);
  }

  it('drops a connection that stops answering, and sends what waited on it over the next one, once', async () => {
    await throughLinks();
    await page.getByText(en['app.offline']).waitFor({ state: 'detached' });
    await page.locator('.chat-header').getByText(en['presence.onlineNow']).waitFor();
    const before = links.length;
    cutLinks();
    await page.getByPlaceholder(en['chat.placeholder']).fill('into the void');
    await tapSend();
    const mine = page.locator('.message-own', { hasText: 'into the void' });
    // Unanswered in time (8 s), the connection counts as dead: the message waits for the next one,
    // which goes through a link of its own, and is sent over it. Without that, it would say "Not
    // sent" until socket.io's own pings gave up, 45 s on.
    await expect.poll(() => mine.getAttribute('class'), { timeout: 25_000 }).toContain('is-sent');
    expect(links.length).toBeGreaterThan(before);
    expect((await stored()).filter((message) => message.content === 'into the void')).toHaveLength(1);
  });

  it('leaves what comes unread while she is up in the history, says so, and reads it once she goes down to it', async () => {
    await throughLinks();
    await page.goto(`${app.server.url}/app/chat/${conversationId}/`);
    const list = page.locator('ol.messages');
    // Halfway up, once the chat has heard of the scroll (its event comes with the next frame: a
    // message here sooner would find the reader still at the bottom, as a finger never is).
    const upInTheHistory = () =>
      list.evaluate(
        (element) =>
          new Promise<void>((resolve) => {
            element.addEventListener('scroll', () => resolve(), { once: true });
            element.scrollTo({ top: element.scrollHeight / 2 });
          }),
      );
    await page.locator('.message').last().waitFor();
    await upInTheHistory();
    const from = framesSent.length;
    const sentSince = (event: string) => framesSent.slice(from).some((frame) => frame.includes(`"${event}"`));
    // Whether her tab has told the server she read up to message `id`. Not any read: the chat opened at
    // its bottom, and the read of what it showed then goes out once the socket has connected, which on
    // a slow connection is after she went up.
    const readUpTo = (id: number) =>
      framesSent.slice(from).some((frame) => Number(/"message:read",\{[^}]*"last_read_id":(\d+)/.exec(frame)?.[1]) >= id);

    const asked = await api().post(`/api/conversations/${conversationId}/messages/`, { token: ben.token, json: { content: 'are you still there?' } });
    const newBelow = page.getByRole('button', { name: new RegExp(en['chat.newBelow']) });
    await newBelow.waitFor();
    // Something she sends after it arrived (typing) goes out; no read of it before it.
    await page.getByPlaceholder(en['chat.placeholder']).fill('y');
    await expect.poll(() => sentSince('typing')).toBe(true);
    expect(readUpTo(asked.body.id)).toBe(false);
    await keepShot(page, 'chat-06-new-below');

    // The button scrolls smoothly: its end, before the next scroll (one sent while it runs is lost in it).
    const scrolledDown = list.evaluate((element) => new Promise<void>((resolve) => element.addEventListener('scrollend', () => resolve(), { once: true })));
    await newBelow.click();
    await scrolledDown;
    await page.locator('.message-content').getByText('are you still there?').waitFor();
    await expect.poll(() => readUpTo(asked.body.id)).toBe(true);
    await newBelow.waitFor({ state: 'detached' });

    // Up again, another comes; her own answer from up there takes her down to it, and the button goes.
    await upInTheHistory();
    await api().post(`/api/conversations/${conversationId}/messages/`, { token: ben.token, json: { content: 'hello?' } });
    await newBelow.waitFor();
    await page.getByPlaceholder(en['chat.placeholder']).fill('yes, coming');
    await tapSend();
    await newBelow.waitFor({ state: 'detached' });
    await page.locator('.message-own', { hasText: 'yes, coming' }).waitFor();
  });

  it('keeps the newest message in view when the chat gets shorter (the phone’s keyboard opens)', async () => {
    const list = page.locator('ol.messages');
    const belowTheNewest = () => list.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
    await expect.poll(belowTheNewest).toBeLessThan(2);
    await page.setViewportSize({ width: PHONE.width, height: 420 });
    try {
      await expect.poll(belowTheNewest).toBeLessThan(2);
      await page.locator('.message-content').getByText('are you still there?').waitFor();
      // Writing: the bars and the banner give their room to the messages, and are back after.
      const barsShown = () => page.locator('.top-bar, .bottom-nav, .verify-banner').evaluateAll((bars) => bars.filter((bar) => bar.checkVisibility()).length);
      await page.getByPlaceholder(en['chat.placeholder']).focus();
      await expect.poll(barsShown).toBe(0);
      await expect.poll(belowTheNewest).toBeLessThan(2);
      expect((await list.boundingBox())!.height).toBeGreaterThan(200);
      await keepShot(page, 'chat-07-keyboard-open');
      await page.getByPlaceholder(en['chat.placeholder']).blur();
      await expect.poll(barsShown).toBe(3);
    } finally {
      await page.setViewportSize(PHONE);
    }
  });

  it('keeps the newest message in view, and reading, when a scroll event finds the chat shorter before it is kept there', async () => {
    const list = page.locator('ol.messages');
    const belowTheNewest = () => list.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
    await expect.poll(belowTheNewest).toBeLessThan(2);
    // The keyboard opens and the list is shorter; a scroll event of that frame comes before the resize
    // observer that keeps the newest message in view (the browser runs the scroll steps first). Here a
    // style makes the list shorter, and a pixel of scroll brings that event.
    await list.evaluate((element) => {
      element.style.maxHeight = '60px';
      element.scrollTop -= 1;
    });
    try {
      await expect.poll(belowTheNewest).toBeLessThan(2);
      expect((await api().post(`/api/conversations/${conversationId}/messages/`, { token: ben.token, json: { content: 'over here' } })).status).toBe(201);
      await page.locator('.message-content').getByText('over here').waitFor();
      const unread = async () =>
        ((await api().get('/api/conversations/started/', { token: ana.token })).body.results as Array<{ id: number; unread_count: number }>).find(
          (item) => item.id === conversationId,
        )?.unread_count;
      await expect.poll(unread).toBe(0);
      expect(await page.getByRole('button', { name: new RegExp(en['chat.newBelow']) }).count()).toBe(0);
    } finally {
      await list.evaluate((element) => element.style.removeProperty('max-height'));
    }
  });

  it('says how much is left near the length limit, and where a paste longer than it was cut, apart on a small phone', async () => {
    const composer = page.getByPlaceholder(en['chat.placeholder']);
    await composer.fill('a'.repeat(1850));
    expect(await page.locator('.composer-count').count()).toBe(0);
    await composer.fill('a'.repeat(1950));
    await page.locator('.composer-count').getByText('1,950/2,000').waitFor();
    await page.setViewportSize({ width: 320, height: 568 });
    try {
      // A paste as the browser does it: the paste event, then the text cut at the composer's maxLength.
      await composer.evaluate((box, text) => {
        const data = new DataTransfer();
        data.setData('text/plain', text);
        box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      }, 'b'.repeat(2100));
      await composer.fill('b'.repeat(2100));
      expect(await composer.inputValue()).toHaveLength(2000);
      const count = page.locator('.composer-count');
      await count.getByText('2,000/2,000').waitFor();
      const cut = page.locator('.composer-cut');
      await cut.getByText('Only the first 2,000 characters fit.').waitFor();
      await keepShot(page, 'chat-10-paste-cut-320');
      // Each line of the notice ends before the count begins.
      const countBox = (await count.boundingBox())!;
      const lines = await cut.evaluate((notice) => {
        const range = document.createRange();
        range.selectNodeContents(notice);
        return [...range.getClientRects()].map(({ left, right, top, bottom }) => ({ left, right, top, bottom }));
      });
      const overlapping = lines.filter(
        (line) => line.right > countBox.x && line.left < countBox.x + countBox.width && line.bottom > countBox.y && line.top < countBox.y + countBox.height,
      );
      expect(overlapping).toEqual([]);
    } finally {
      await page.setViewportSize(PHONE);
    }
    await composer.fill('');
    await page.locator('.composer-count').waitFor({ state: 'detached' });
  });

  it('offers no Send for a message in which nothing would show', async () => {
    const composer = page.getByPlaceholder(en['chat.placeholder']);
    const messages = await page.getByTestId('message').count();
    // Spaces and zero-width characters: blank to the server, which would refuse the message.
    await composer.fill(' \u200b\u200b ');
    expect(await page.getByRole('button', { name: en['chat.send'], exact: true }).isDisabled()).toBe(true);
    // Return on the phone adds a line break, which shows nothing either.
    await composer.press('Enter');
    expect(await composer.inputValue()).toBe(' \u200b\u200b \n');
    expect(await page.getByRole('button', { name: en['chat.send'], exact: true }).isDisabled()).toBe(true);
    expect(await page.getByTestId('message').count()).toBe(messages);
    await composer.fill('');
  });

  it('shows a new match online at once, on the socket that heard of the match', async () => {
    await page.getByText(en['app.offline']).waitFor({ state: 'detached' });
    const cai = await makeCompletedUser(app.server, { name: 'Cai', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Cai' });
    const caiSocket = await connect(app.server.url, cai.token);
    try {
      await api().post('/api/matching/', { token: cai.token, json: { response: 'like', other: ana.id } });
      const matched = await api().post('/api/matching/', { token: ana.token, json: { response: 'like', other: cai.id } });
      await page.getByRole('heading', { name: en['deck.match.title'] }).waitFor();
      // To the chat in the app, not by a reload (whose new socket would ask who is online anyway).
      await page.evaluate((id) => history.pushState(null, '', `/app/chat/${id}/`), matched.body.conversation_id as number);
      await page.locator('.chat-header').getByText('Cai').waitFor();
      await page.locator('.chat-header').getByText(en['presence.onlineNow']).waitFor();
    } finally {
      caiSocket.close();
    }
    await page.goto(`${app.server.url}/app/chat/${conversationId}/`);
  });

  it('puts a dot on Chats for a match made while she was elsewhere, until she looks at her matches', async () => {
    await page.goto(`${app.server.url}/app/home/`);
    const chats = page.getByRole('navigation').getByRole('link', { name: new RegExp(en['app.nav.chats']) });
    await chats.waitFor();
    await page.getByText(en['app.offline']).waitFor({ state: 'detached' });
    expect(await chats.locator('.nav-dot').count()).toBe(0);

    const dan = await makeCompletedUser(app.server, { name: 'Dan', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Dan' });
    await api().post('/api/matching/', { token: dan.token, json: { response: 'like', other: ana.id } });
    await api().post('/api/matching/', { token: ana.token, json: { response: 'like', other: dan.id } });
    // The overlay says it for 2 s; the dot stays after it, for a phone that was in a pocket.
    await chats.locator('.nav-dot').waitFor();
    expect(await chats.textContent()).toContain(en['matches.newMatch']);
    await page.getByRole('heading', { name: en['deck.match.title'] }).waitFor({ state: 'detached' });
    expect(await chats.locator('.nav-dot').count()).toBe(1);
    await keepShot(page, 'chat-08-new-match-dot');

    await chats.click();
    await page.getByRole('link', { name: /Dan/ }).first().waitFor();
    await chats.locator('.nav-dot').waitFor({ state: 'detached' });
    await page.getByRole('navigation').getByRole('link', { name: en['app.nav.home'] }).click();
    await page.getByTestId('swipe-card').or(page.locator('.deck-empty')).first().waitFor();
    expect(await chats.locator('.nav-dot').count()).toBe(0);
    await page.goto(`${app.server.url}/app/chat/${conversationId}/`);
  });

  it('keeps what was typed and not sent when the chat is left, until it is sent', async () => {
    const composer = page.getByPlaceholder(en['chat.placeholder']);
    const row = page.locator('.conversation-list').getByRole('link', { name: /Ben/ });
    const leaveAndComeBack = async (rowSays: string) => {
      await page.getByRole('link', { name: en['chat.back'] }).click();
      await row.waitFor();
      // The list shows the draft where the last message would be.
      await expect.poll(() => row.locator('.conversation-last').textContent()).toBe(rowSays);
      await row.click();
      await page.locator('.message', { hasText: 'while you were away' }).waitFor();
    };
    await composer.fill('half a thought');
    await leaveAndComeBack(`${en['matches.draft']} half a thought`);
    expect(await composer.inputValue()).toBe('half a thought');
    // The phone drops the tab: the app opened again still holds it.
    await page.reload();
    await page.locator('.message', { hasText: 'while you were away' }).waitFor();
    expect(await composer.inputValue()).toBe('half a thought');

    await tapSend();
    await expect.poll(() => page.locator('.message-own', { hasText: 'half a thought' }).getAttribute('class')).toContain('is-sent');
    // Sent, the row shows it as the last message, the reader's own.
    await leaveAndComeBack(`${en['matches.you']} half a thought`);
    expect(await composer.inputValue()).toBe('');
    // Sent, it does not come back with a reload either.
    await page.reload();
    await page.locator('.message-own', { hasText: 'half a thought' }).waitFor();
    expect(await composer.inputValue()).toBe('');
  });

  it('keeps what one tab typed through its reload, though her other tab sent a draft of the same chat meanwhile', async () => {
    await page.goto(`${app.server.url}/app/chat/${conversationId}`);
    const composer = page.getByPlaceholder(en['chat.placeholder']);
    const kept = () => page.evaluate((key) => localStorage.getItem(key) ?? '', `chat_drafts:${ana.id}`);
    await composer.fill('typed in this tab');
    await expect.poll(kept).toContain('typed in this tab');
    const other = await page.context().newPage();
    try {
      await other.goto(`${app.server.url}/app/chat/${conversationId}`);
      await other.getByPlaceholder(en['chat.placeholder']).fill('sent from the other tab');
      await other.getByRole('button', { name: en['chat.send'], exact: true }).click();
      await page.locator('.message-own', { hasText: 'sent from the other tab' }).waitFor();
      // The other tab wrote its sent draft away, and with it what this one keeps for the chat.
      await expect.poll(kept).not.toContain('typed in this tab');
      expect(await composer.inputValue()).toBe('typed in this tab');
      await page.reload();
      await page.locator('.message-own', { hasText: 'sent from the other tab' }).waitFor();
      expect(await composer.inputValue()).toBe('typed in this tab');
      await composer.fill('');
      await expect.poll(kept).not.toContain('typed in this tab');
    } finally {
      await other.close();
    }
  });

  it('writes several lines on a phone: Return breaks the line, the composer grows up to six, Send sends them', async () => {
    const composer = page.getByPlaceholder(en['chat.placeholder']);
    const height = () => composer.evaluate((element) => element.getBoundingClientRect().height);
    const lines = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}`).join('\n');
    const oneLine = await height();
    // The keyboard's Return key says what it does: a new line, as in the phone's own messaging apps.
    expect(await composer.getAttribute('enterkeyhint')).toBe('enter');
    const before = (await stored()).length;
    await composer.pressSequentially('first line');
    await composer.press('Enter');
    await composer.pressSequentially('second line');
    expect(await composer.inputValue()).toBe('first line\nsecond line');
    expect((await stored()).length).toBe(before);
    const twoLines = await height();
    expect(twoLines).toBeGreaterThan(oneLine + 10);

    await composer.fill(lines(6));
    const sixLines = await height();
    expect(sixLines).toBeGreaterThan(twoLines);
    // Past six lines it stops growing and scrolls instead.
    await composer.fill(lines(12));
    expect(await height()).toBe(sixLines);
    expect(await composer.evaluate((element) => element.scrollHeight > element.clientHeight)).toBe(true);

    await composer.fill(lines(3));
    await keepShot(page, 'chat-07-lines');
    await tapSend();
    const sent = page.locator('.message-own', { hasText: 'line 3' });
    await expect.poll(() => sent.getAttribute('class')).toContain('is-sent');
    expect(await sent.locator('.message-content').textContent()).toBe(lines(3));
    expect((await stored())[0]?.content).toBe(lines(3));
    expect(await composer.inputValue()).toBe('');
    expect(await height()).toBe(oneLine);
  });

  it('leaves the messages room above a composer of many lines when the keyboard is up on a small phone', async () => {
    const composer = page.getByPlaceholder(en['chat.placeholder']);
    const list = page.locator('ol.messages');
    if (!page.url().endsWith(`/app/chat/${conversationId}/`)) await page.goto(`${app.server.url}/app/chat/${conversationId}/`);
    await composer.waitFor();
    // A 320×568 phone with its keyboard up: about 300 px left of the screen.
    await page.setViewportSize({ width: 320, height: 300 });
    try {
      await composer.focus();
      await composer.fill(Array.from({ length: 12 }, (_, index) => `line ${index + 1}`).join('\n'));
      const heights = async () => ({ list: (await list.boundingBox())!.height, composer: (await composer.boundingBox())!.height });
      await keepShot(page, 'chat-07-lines-keyboard-320');
      // The composer still grows past two lines, and leaves the messages more room than it takes: at six
      // lines it left them a strip of 40 px, no message whole in it.
      const { list: listHeight, composer: composerHeight } = await heights();
      expect(composerHeight).toBeGreaterThan(80);
      expect(listHeight).toBeGreaterThan(composerHeight);
      expect(await composer.evaluate((element) => element.scrollHeight > element.clientHeight)).toBe(true);
    } finally {
      await composer.fill('');
      await composer.blur();
      await page.setViewportSize(PHONE);
    }
  });

  it('sends with Enter from a laptop’s keyboard, where Shift+Enter breaks the line', async () => {
    const { context: laptop, page: desk } = await openLaptop(app.browser, { token: ana.token, language: 'en' });
    try {
      await desk.goto(`${app.server.url}/app/chat/${conversationId}/`);
      const composer = desk.getByPlaceholder(en['chat.placeholder']);
      await composer.waitFor();
      expect(await composer.getAttribute('enterkeyhint')).toBe('send');
      // With nothing written, Enter does nothing: no line, no send, and no check of the empty field
      // (which would fire `invalid` and show the browser's "fill out this field" bubble).
      await composer.evaluate((element) => {
        (window as unknown as { invalids: number }).invalids = 0;
        element.addEventListener('invalid', () => (window as unknown as { invalids: number }).invalids++);
      });
      const before = (await stored()).length;
      await composer.press('Enter');
      expect(await composer.inputValue()).toBe('');
      expect(await desk.evaluate(() => (window as unknown as { invalids: number }).invalids)).toBe(0);
      expect((await stored()).length).toBe(before);

      await composer.pressSequentially('from the laptop');
      await composer.press('Shift+Enter');
      await composer.pressSequentially('two lines');
      expect(await composer.inputValue()).toBe('from the laptop\ntwo lines');
      await composer.press('Enter');
      await expect.poll(() => desk.locator('.message-own', { hasText: 'two lines' }).getAttribute('class')).toContain('is-sent');
      expect((await stored())[0]?.content).toBe('from the laptop\ntwo lines');
      expect(await composer.inputValue()).toBe('');
    } finally {
      await laptop.close();
    }
  });

  it('shows an address in a message as a link that opens in a new tab', async () => {
    const sent = await api().post(`/api/conversations/${conversationId}/messages/`, { token: ben.token, json: { content: 'find me: instagram.com/ben_dj (DJ set at 2), josé@correo.es' } });
    expect(sent.status).toBe(201);
    const message = page.locator('.message-partner', { hasText: 'find me' });
    const link = message.getByRole('link', { name: 'instagram.com/ben_dj' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('http://instagram.com/ben_dj');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toContain('noopener');
    // An e-mail address with an accent in its name, whole.
    expect(await message.getByRole('link', { name: 'josé@correo.es' }).getAttribute('href')).toBe('mailto:josé@correo.es');
    // The text around them is the message's, unchanged.
    expect(await message.locator('.message-content').textContent()).toBe('find me: instagram.com/ben_dj (DJ set at 2), josé@correo.es');
  });

  it('counts on the Chats tab what came while the user was elsewhere, from any screen, until it is read', async () => {
    const badge = page.locator('.bottom-nav .nav-badge');
    const benWrites = async (content: string) =>
      expect((await api().post(`/api/conversations/${conversationId}/messages/`, { token: ben.token, json: { content } })).status).toBe(201);

    // In the chat, a message is read as it comes: nothing to count.
    await benWrites('are you still here?');
    await page.locator('.message-partner', { hasText: 'are you still here?' }).waitFor();
    expect(await badge.count()).toBe(0);

    await page.locator('.bottom-nav').getByRole('link', { name: en['app.nav.home'] }).click();
    await benWrites('by the bar');
    await benWrites('green jacket');
    const chats = page.locator('.bottom-nav').getByRole('link', { name: new RegExp(`${en['app.nav.chats']}.*2 unread`) });
    await chats.waitFor();
    expect(await badge.textContent()).toBe('2');
    expect(await page.title()).toBe(`(2) ${en['app.nav.home']} · Eventmatch`);
    // Away from the chat, a message also shows who wrote and what; the newest in place of the one before.
    const toasts = page.locator('.toast-message');
    await toasts.getByText('green jacket').waitFor();
    expect(await toasts.count()).toBe(1);
    expect(await toasts.locator('.toast-title').textContent()).toBe('Ben');
    await entryAnimationsDone(page);
    await keepShot(page, 'chat-06-unread-badge');
    // It opens the chat; back on Home, the count is still there, to be cleared by reading.
    await toasts.getByRole('link').click();
    await page.locator('.message-partner', { hasText: 'green jacket' }).waitFor();
    expect(await toasts.count()).toBe(0);
    await page.locator('.bottom-nav').getByRole('link', { name: en['app.nav.home'] }).click();
    await benWrites('still by the bar');
    await benWrites('come say hi');
    await chats.waitFor();
    await toasts.getByText('come say hi').waitFor();
    await toasts.getByRole('button', { name: en['toast.close'] }).click();

    // Opened afresh, the app knows from the server what is unread.
    await page.reload();
    await chats.waitFor();
    expect(await badge.textContent()).toBe('2');

    await chats.click();
    await page.locator('.conversation-list').getByRole('link', { name: /Ben/ }).click();
    await page.locator('.message-partner', { hasText: 'come say hi' }).waitFor();
    await badge.waitFor({ state: 'detached' });
    expect(await page.title()).toBe(`Ben · ${en['app.nav.chats']} · Eventmatch`);
  });

  it("opens the partner's profile again from the chat header, which fits a 360 px phone", async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      const header = page.locator('.chat-header');
      const toProfile = header.getByRole('link', { name: 'Open the profile of Ben' });
      await toProfile.waitFor();
      // Back, avatar and name, the safety menu: one row, nothing off the screen.
      expect(await header.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
      const [link, menu] = await Promise.all([toProfile.boundingBox(), header.locator('.safety-menu').first().boundingBox()]);
      expect(link!.x + link!.width).toBeLessThanOrEqual(menu!.x);
      expect(link!.height).toBeLessThan(60);
      await keepShot(page, 'chat-08-header-360');

      await toProfile.click();
      await page.waitForURL(`**/app/profiles/${ben.id}`);
      await page.locator('.profile-info h1', { hasText: 'Ben' }).waitFor();
      // A match's profile leads back to the chat, not to the deck's like and reject buttons.
      expect(await page.getByRole('button', { name: en['profileView.reject'] }).count()).toBe(0);
      await page.getByRole('link', { name: en['deck.match.chat'] }).waitFor();
      await page.getByRole('link', { name: en['profileView.back'] }).click();
      await page.locator('.message-partner', { hasText: 'come say hi' }).waitFor();
      await page.goBack();
      await page.locator('.profile-info h1', { hasText: 'Ben' }).waitFor();
      await page.goBack();
      await page.locator('.message-partner', { hasText: 'come say hi' }).waitFor();
    } finally {
      await page.setViewportSize({ width: 390, height: 844 });
    }
  });

  it('shows the overlay of a match made while its socket connected, from its next read of the lists', async () => {
    const dev = await makeCompletedUser(app.server, { name: 'Dev', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Dev' });
    expect((await api().post('/api/matching/', { token: ana.token, json: { response: 'like', other: dev.id } })).body.match).toBe(false);
    // Her other phone is put away: in view, it would show the match, and this one would know it was seen.
    const was = page.url();
    await page.goto('about:blank');
    const gate = opening();
    const { context, page: late } = await openPhone(app.browser, { token: ana.token, language: 'en' });
    await holdSocketUntil(late, () => gate.promise);
    try {
      const listed = late.waitForResponse((response) => response.url().includes('/api/conversations/empty/'));
      await late.goto(`${app.server.url}/app/matches/`);
      await listed;
      await late.getByRole('heading', { name: en['matches.matchesTitle'] }).waitFor();
      // Dev likes her back while her socket is not in its rooms yet: his `match:new` reaches no tab of hers.
      expect((await api().post('/api/matching/', { token: dev.token, json: { response: 'like', other: ana.id } })).body.match).toBe(true);
      gate.open();
      // One look at the overlay, which closes itself in 2 s: its title and its words together.
      await late.getByRole('alertdialog', { name: en['deck.match.title'] }).getByText('You and Dev can chat now.').waitFor();
      await late.locator('.match-strip').getByRole('link', { name: /Dev/ }).waitFor();
    } finally {
      await context.close();
      await page.goto(was);
    }
  });

  it('hears at its first connect what came while it connected: a message, then the chat ended', async () => {
    const cy = await makeCompletedUser(app.server, { name: 'Cy', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Cy' });
    const chat = await match(app.server, cy, ana);
    const write = async (content: string) => expect((await api().post(`/api/conversations/${chat}/messages/`, { token: cy.token, json: { content } })).status).toBe(201);
    await write('before you came');
    // A slow network: the tab's socket reaches the server only when the gate opens.
    let gate = opening();
    const { context, page: late } = await openPhone(app.browser, { token: ana.token, language: 'en' });
    await holdSocketUntil(late, () => gate.promise);
    const chatRead = () => late.waitForResponse((response) => response.url().includes(`/api/conversations/${chat}/messages/`));
    try {
      let read = chatRead();
      await late.goto(`${app.server.url}/app/chat/${chat}`);
      await read;
      await late.locator('.message', { hasText: 'before you came' }).waitFor();
      await write('while you connected');
      gate.open();
      await late.locator('.message', { hasText: 'while you connected' }).waitFor();

      gate = opening();
      read = chatRead();
      await late.reload();
      await read;
      expect((await api().post(`/api/users/${ana.id}/block/`, { token: cy.token })).status).toBeLessThan(300);
      gate.open();
      await late.waitForURL('**/app/matches/');
      await late.locator('.ended-notice').getByText(en['chat.ended'].replace('{name}', 'Cy')).waitFor();
    } finally {
      await context.close();
    }
  });

  it('lists what was written offline as not sent yet, and says whole on a small phone that it was not sent when the chat ended', async () => {
    const dov = await makeCompletedUser(app.server, { name: 'Dov', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Dov' });
    const chat = await match(app.server, dov, ana);
    expect((await api().post(`/api/conversations/${chat}/messages/`, { token: dov.token, json: { content: 'where are you?' } })).status).toBe(201);
    await page.setViewportSize({ width: 320, height: 568 });
    try {
      await page.goto(`${app.server.url}/app/chat/${chat}`);
      await page.getByPlaceholder(en['chat.placeholder']).waitFor();
      await page.route('**/api/conversations/*/messages/', (route) => (route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.continue()));
      socketBlocked = true;
      app.server.app.io.in(`user:${ana.id}`).disconnectSockets(true);
      await page.getByText(en['app.offline']).waitFor();
      for (const content of ['on my way', 'by the door']) {
        await page.getByPlaceholder(en['chat.placeholder']).fill(content);
        await tapSend();
        await page.locator('.message-own', { hasText: content }).getByText(en['chat.queued']).waitFor();
      }
      // The list says they wait, where it would show the chat's last message as if they had gone.
      await page.getByRole('link', { name: en['chat.back'] }).click();
      const row = page.locator('.conversation-list').getByRole('link', { name: /Dov/ });
      await expect.poll(() => row.locator('.conversation-last').textContent()).toBe(`${en['matches.unsent']} by the door`);
      expect((await api().post(`/api/users/${ana.id}/block/`, { token: dov.token })).status).toBeLessThan(300);
      await socketBack();

      await row.waitFor({ state: 'detached' });
      const said = page.locator('.toast-error .toast-text');
      await said.getByText(en['chat.notSentMany'].replace('{count}', '2')).waitFor();
      expect(await said.evaluate((text) => text.scrollHeight <= text.clientHeight)).toBe(true);
      await keepShot(page, 'chat-20-not-sent-ended-320');
    } finally {
      await page.setViewportSize(PHONE);
    }
  });

  it('shows the start of a long right-to-left last message in the list, cut on its left, on a 320 px phone', async () => {
    const cleo = await makeCompletedUser(app.server, { name: 'Cleo' }, { firstName: 'Cleo' });
    const dev = await makeCompletedUser(app.server, { name: 'Dev' }, { firstName: 'Dev' });
    const eli = await makeCompletedUser(app.server, { name: 'Eli' }, { firstName: 'Eli' });
    const withDev = await match(app.server, dev, cleo);
    const withEli = await match(app.server, eli, cleo);
    const long = (first: string) => `${first} ${'كيف حالك الليلة؟ '.repeat(6)}https://example.com/party`;
    // Dev's, and Cleo's own (after her "Tú:").
    for (const [who, chat, first] of [[dev, withDev, 'مرحبا'], [cleo, withEli, 'أهلا']] as const) {
      const sent = await api().post(`/api/conversations/${chat}/messages/`, { token: who.token, json: { content: long(first) } });
      expect(sent.status).toBe(201);
    }
    const { context, page: phone } = await openPhone(app.browser, { token: cleo.token, language: 'es' });
    try {
      await phone.setViewportSize({ width: 320, height: 568 });
      await phone.goto(`${app.server.url}/app/matches/`);
      for (const [name, first] of [['Dev', 'مرحبا'], ['Eli', 'أهلا']]) {
        const last = phone.locator('.conversation', { hasText: name }).locator('.conversation-last');
        await last.waitFor();
        // Its first word lies within what the row shows (it was past its right edge, the end showing).
        const shown = await last.evaluate((row, word) => {
          const text = [...row.querySelectorAll('[dir="auto"]')].at(-1)!.firstChild!;
          const range = document.createRange();
          range.setStart(text, 0);
          range.setEnd(text, word.length);
          const box = row.getBoundingClientRect();
          const at = range.getBoundingClientRect();
          return at.left >= box.left - 1 && at.right <= box.right + 1;
        }, first);
        expect(shown, name).toBe(true);
      }
      expect(await phone.locator('.conversation', { hasText: 'Eli' }).locator('.conversation-last').textContent()).toMatch(/^Tú:/);
      await keepShot(phone, 'chat-15-rtl-list-320');
    } finally {
      await context.close();
    }
  });

  it('shows the start of a long right-to-left name in the list and the chat header, on a 320 px phone', async () => {
    const name = 'عبد الرحمن بن محمد بن عبد العزيز الحسيني';
    const gus = await makeCompletedUser(app.server, { name: 'Gus' }, { firstName: 'Gus' });
    const long = await makeCompletedUser(app.server, { name }, { firstName: 'Abd' });
    const chat = await match(app.server, long, gus);
    expect((await api().post(`/api/conversations/${chat}/messages/`, { token: long.token, json: { content: 'hola' } })).status).toBe(201);
    const { context, page: phone } = await openPhone(app.browser, { token: gus.token, language: 'es' });
    /** Whether the name's first word lies within `box`'s selector (it was past the right edge, the name's end showing). */
    const startShown = (selector: string) =>
      phone.locator(selector).first().evaluate((box) => {
        const text = box.querySelector('bdi')!.firstChild!;
        const range = document.createRange();
        range.setStart(text, 0);
        range.setEnd(text, 3);
        const outer = box.getBoundingClientRect();
        const at = range.getBoundingClientRect();
        return at.left >= outer.left - 1 && at.right <= outer.right + 1;
      });
    try {
      await phone.setViewportSize({ width: 320, height: 568 });
      await phone.goto(`${app.server.url}/app/matches/`);
      await phone.locator('.conversation-name', { hasText: 'عبد' }).waitFor();
      expect(await startShown('.conversation-name')).toBe(true);
      await phone.locator('.conversation').first().click();
      await phone.locator('.chat-header h1').waitFor();
      expect(await startShown('.chat-header h1')).toBe(true);
      await keepShot(phone, 'chat-16-rtl-name-320');
    } finally {
      await context.close();
    }
  });

  it('keeps the reader where they were when a message comes while the older page loads, and leaves it unread below', async () => {
    // A conversation of its own, two pages long, opened at its newest page.
    const dan = await makeCompletedUser(app.server, { name: 'Dan', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Dan' });
    await api().post('/api/matching/', { token: dan.token, json: { response: 'like', other: ana.id } });
    const matched = await api().post('/api/matching/', { token: ana.token, json: { response: 'like', other: dan.id } });
    const danChat = matched.body.conversation_id as number;
    for (let i = 1; i <= 60; i += 1) {
      const sent = await api().post(`/api/conversations/${danChat}/messages/`, { token: i % 2 ? dan.token : ana.token, json: { content: `dan ${i}` } });
      expect(sent.status).toBe(201);
    }
    await page.goto(`${app.server.url}/app/chat/${danChat}/`);
    await page.locator('.message-content').getByText('dan 60', { exact: true }).waitFor();
    const unread = async () =>
      ((await api().get('/api/conversations/started/', { token: ana.token })).body.results as Array<{ id: number; unread_count: number }>).find((item) => item.id === danChat)
        ?.unread_count;
    await expect.poll(unread).toBe(0);

    // The older page is held until the new message is on the screen.
    const older = /\/api\/conversations\/\d+\/messages\/\?.*cursor=/;
    const gate = opening();
    await page.route(older, async (route) => {
      await gate.promise;
      await route.continue();
    });
    try {
      const asked = page.waitForRequest(older);
      const list = page.locator('ol.messages');
      const topOf = (text: string) =>
        page
          .locator('.message')
          .filter({ has: page.locator('.message-content').getByText(text, { exact: true }) })
          .evaluate((message) => message.getBoundingClientRect().top);
      // Up at the oldest message drawn (the newest page is 11 to 60), where the older page is asked for.
      await list.evaluate((element) => (element.scrollTop = 0));
      await asked;
      const atTheTop = await topOf('dan 11');

      expect((await api().post(`/api/conversations/${danChat}/messages/`, { token: dan.token, json: { content: 'still up there?' } })).status).toBe(201);
      await page.locator('.message-content').getByText('still up there?').waitFor();
      const newBelow = page.getByRole('button', { name: new RegExp(en['chat.newBelow']) });
      await newBelow.waitFor();
      expect(Math.abs((await topOf('dan 11')) - atTheTop)).toBeLessThanOrEqual(2);

      gate.open();
      await page.locator('.message-content').getByText('dan 1', { exact: true }).waitFor();
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      await keepShot(page, 'chat-01c-older-and-new');
      // The message she was looking at is where it was; the new one waits below, unread.
      expect(Math.abs((await topOf('dan 11')) - atTheTop)).toBeLessThanOrEqual(2);
      expect(await newBelow.isVisible()).toBe(true);
      expect(await list.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight)).toBeGreaterThan(200);
      expect(await unread()).toBe(1);
      const texts = await page.locator('.message-content').allTextContents();
      expect(texts).toEqual([...Array.from({ length: 60 }, (_, i) => `dan ${i + 1}`), 'still up there?']);
    } finally {
      await page.unroute(older);
    }
  });
});
