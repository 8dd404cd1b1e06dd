/**
 * The app with no network, in Debian's Chromium on a phone-sized screen: once opened, the service
 * worker has stored the build, so the app opens again with none (the shell, "No connection", a deck
 * that says why it is empty; the chats and lists the phone last showed, written in as usual; profiles,
 * likes, events, the plan and the host screen that say they wait for the network) and fills itself in
 * when the network is back, without a reload; the faces the phone last showed, stored by the worker
 * (forgotten at a sign-out). The API and the socket never wake the worker. And a
 * page whose script is gone from the server (a new version went out) reloads once instead of going
 * blank. Screenshots land in tests/e2e/artifacts/.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext, Locator, Page, Response } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PHOTO_CACHE } from '../../client/sw/photo-cache';
import { en } from '../../shared/i18n/en';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { checkIn, makeEvent } from '../helpers/events';
import { client } from '../helpers/http';
import { subscribeThroughTestCheckout } from '../helpers/plan';
import { hasChromium, keepShot, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

describe.skipIf(!ready)('the app with no network (Chromium, 390×844)', { timeout: 90_000 }, () => {
  const app = appInChromium();
  let context: BrowserContext;
  let page: Page;
  let ana: TestUser;
  let ben: TestUser;
  /** Ana and Ben's, from the chat test on. */
  let conversationId: number;

  const shot = (name: string) => keepShot(page, name);
  /** Resolves once the service worker controls the page (it claims the pages open when it activates). */
  const controlled = () =>
    page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      while (!navigator.serviceWorker.controller) await new Promise((resolve) => setTimeout(resolve, 50));
    });

  beforeAll(async () => {
    ana = await makeCompletedUser(app.server, { name: 'Ana', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Ana' });
    ben = await makeCompletedUser(app.server, { name: 'Ben', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Ben' });
    ({ context, page } = await openPhone(app.browser, { token: ana.token, language: 'en' }, { serviceWorkers: 'allow' }));
  }, 120_000);

  /**
   * Forgets what the phone keeps under `key`, online, away from the app first: back online, it reads
   * again what it keeps, and a read still on its way would put back what is forgotten here (the socket
   * reconnects the moment the network returns). A page of the same origin that runs none of the app.
   */
  async function forgetKept(key: string) {
    await page.goto(`${app.server.url}/robots.txt`);
    await page.evaluate((kept) => localStorage.removeItem(kept), key);
  }

  // A test that fails while offline must not take the next one down with it.
  afterEach(() => context.setOffline(false));

  it('opens from what the service worker stored, says it is offline, and fills in when the network is back', async () => {
    await page.goto(`${app.server.url}/app/home/`);
    await page.getByTestId('swipe-card').waitFor();
    await controlled();

    await context.setOffline(true);
    const reload = await page.reload();
    // The page came from the worker's store: the network had nothing to give.
    expect(reload?.fromServiceWorker()).toBe(true);
    await page.getByText(en['app.noNetwork'], { exact: true }).waitFor();
    await page.getByText(en['deck.offline']).waitFor();
    await page.getByRole('navigation', { name: en['app.nav.label'] }).waitFor();
    await shot('offline-01-opened-with-no-network');

    // Back online: the socket connects, and what could not load loads, with no reload.
    const answered: string[] = [];
    const listen = (response: Response) => {
      if (response.ok()) answered.push(new URL(response.url()).pathname);
    };
    page.on('response', listen);
    await context.setOffline(false);
    await page.getByTestId('swipe-card').waitFor();
    await page.locator('.offline-banner').waitFor({ state: 'detached' });
    await page.getByText(en['app.verifyBanner'].replace('{email}', ana.email)).waitFor();
    await shot('offline-02-back-online');
    // Her likes left, which the deck could not ask for, are asked for again; where she is, once.
    await expect.poll(() => answered.filter((pathname) => pathname === '/api/matching/allowance/').length).toBe(1);
    await expect.poll(() => answered.filter((pathname) => pathname === '/api/events/current/').length).toBe(1);
    await page.waitForLoadState('networkidle');
    page.off('response', listen);
    expect(answered.filter((pathname) => pathname === '/api/events/current/')).toHaveLength(1);
  });

  it('opens a chat this phone knows nothing of with no network as "no connection", not "not found", and opens it once back', async () => {
    // Matched, and written to, while this phone has no network: it heard of neither, and the lists it
    // keeps do not have them. (Offline only after the match, the lists the phone read again when told
    // of it could come back after they were taken away, and hold the chat.)
    await context.setOffline(true);
    const api = client(app.server.url);
    await api.post('/api/matching/', { token: ben.token, json: { response: 'like', other: ana.id } });
    const matched = await api.post('/api/matching/', { token: ana.token, json: { response: 'like', other: ben.id } });
    conversationId = matched.body.conversation_id;
    await api.post(`/api/conversations/${conversationId}/messages/`, { token: ben.token, json: { content: 'Where are you?' } });
    expect((await page.evaluate((key) => localStorage.getItem(key), `cache:conversations:${ana.id}`)) ?? '').not.toContain('Where are you?');
    await page.goto(`${app.server.url}/app/chat/${conversationId}/`);
    await page.getByText(en['chat.offline']).waitFor();
    expect(await page.getByText(en['chat.notFound']).count()).toBe(0);
    await shot('offline-03-chat-with-no-network');

    await context.setOffline(false);
    await page.locator('.message-content').getByText('Where are you?').waitFor();
    await page.getByRole('textbox').waitFor();

    // A chat the server says is not there (ended, never hers) is "not available", online or not.
    await page.goto(`${app.server.url}/app/chat/${conversationId + 1000}/`);
    await page.getByText(en['chat.notFound']).waitFor();
    expect(await page.getByText(en['chat.offline']).count()).toBe(0);
  });

  it('sends a message written with no network once back, though the app was closed and opened again with none', async () => {
    const stored = async () =>
      ((await client(app.server.url).get(`/api/conversations/${conversationId}/messages/`, { token: ben.token })).body.results as Array<{ content: string }>).map(
        (message) => message.content,
      );
    await page.goto(`${app.server.url}/app/chat/${conversationId}/`);
    await page.locator('.message-content').getByText('Where are you?').waitFor();
    await context.setOffline(true);
    await page.getByText(en['app.noNetwork'], { exact: true }).waitFor();
    await page.getByPlaceholder(en['chat.placeholder']).fill('On the terrace');
    await page.getByRole('button', { name: en['chat.send'], exact: true }).tap();
    await page.locator('.message-own', { hasText: 'On the terrace' }).getByText(en['chat.queued']).waitFor();

    // The phone closes the app and opens it again, still with no network: it opens from the worker's store.
    await page.close();
    page = await context.newPage();
    await page.goto(`${app.server.url}/app/home/`);
    await page.getByText(en['app.noNetwork'], { exact: true }).waitFor();
    expect(await stored()).not.toContain('On the terrace');

    // Back online: the user is known again, the message written before goes out, once.
    await context.setOffline(false);
    await expect.poll(stored, { timeout: 15_000 }).toContain('On the terrace');
    expect((await stored()).filter((content) => content === 'On the terrace')).toHaveLength(1);
  });

  it('sends what a tab closed with no network left from her other tab, at once, before what that tab writes after it', async () => {
    const chat = `${app.server.url}/app/chat/${conversationId}/`;
    const stored = async () =>
      ((await client(app.server.url).get(`/api/conversations/${conversationId}/messages/`, { token: ben.token })).body.results as Array<{ id: number; content: string }>)
        .sort((a, b) => a.id - b.id)
        .map((message) => message.content);
    await page.goto(chat);
    await page.locator('.message-content').getByText('On the terrace').waitFor();
    const other = await context.newPage();
    await other.goto(chat);
    await other.locator('.message-content').getByText('On the terrace').waitFor();

    await context.setOffline(true);
    await page.getByText(en['app.noNetwork'], { exact: true }).waitFor();
    await page.getByPlaceholder(en['chat.placeholder']).fill('Left in the closed tab');
    await page.getByRole('button', { name: en['chat.send'], exact: true }).tap();
    await page.locator('.message-own', { hasText: 'Left in the closed tab' }).getByText(en['chat.queued']).waitFor();
    await page.close();
    page = other;
    // The tab still open takes it up as the other closes: it waits there for the network, first.
    await page.locator('.message-own', { hasText: 'Left in the closed tab' }).getByText(en['chat.queued']).waitFor();
    await page.getByPlaceholder(en['chat.placeholder']).fill('Written after it');
    await page.getByRole('button', { name: en['chat.send'], exact: true }).tap();
    await page.locator('.message-own', { hasText: 'Written after it' }).getByText(en['chat.queued']).waitFor();

    await context.setOffline(false);
    await expect.poll(async () => (await stored()).slice(-2), { timeout: 15_000 }).toEqual(['Left in the closed tab', 'Written after it']);
    expect((await stored()).filter((content) => content === 'Left in the closed tab')).toHaveLength(1);
  });

  it('opens her matches and a chat as she last saw them with no network, writes in it, and catches up once back', async () => {
    const api = client(app.server.url);
    await page.goto(`${app.server.url}/app/chat/${conversationId}/`);
    await page.locator('.message-content').getByText('On the terrace').waitFor();
    // What the device keeps is written a moment after the chat settles.
    await expect
      .poll(() => page.evaluate((key) => localStorage.getItem(key) ?? '', `cache:chats:${ana.id}`))
      .toContain('On the terrace');

    await context.setOffline(true);
    await page.reload();
    await page.getByText(en['app.noNetwork'], { exact: true }).waitFor();
    await page.locator('.message-content').getByText('On the terrace').waitFor();
    expect(await page.getByText(en['chat.offline']).count()).toBe(0);
    // Ben writes meanwhile; she writes too, and it waits for the network.
    await api.post(`/api/conversations/${conversationId}/messages/`, { token: ben.token, json: { content: 'See you there' } });
    await page.getByPlaceholder(en['chat.placeholder']).fill('Bring the jackets');
    await page.getByRole('button', { name: en['chat.send'], exact: true }).tap();
    await page.locator('.message-own', { hasText: 'Bring the jackets' }).getByText(en['chat.queued']).waitFor();
    await shot('offline-07-kept-chat-with-no-network');

    // Her list of chats, as she last saw it.
    await page.goto(`${app.server.url}/app/matches/`);
    await page.getByRole('link', { name: /Ben/ }).first().waitFor();
    expect(await page.getByText(en['matches.offlineChats']).count()).toBe(0);
    // No new match in it when it was kept: said as online, not as waiting for the network.
    await page.getByText(en['matches.noMatches']).waitFor();
    expect(await page.getByText(en['matches.offline']).count()).toBe(0);
    await page.getByRole('link', { name: /Ben/ }).first().click();
    await page.locator('.message-content').getByText('On the terrace').waitFor();

    // Back online: what she wrote goes out once, and Ben's message arrives.
    await context.setOffline(false);
    await page.locator('.message-content').getByText('See you there').waitFor();
    await page.locator('.message-own', { hasText: 'Bring the jackets' }).getByText(en['chat.queued']).waitFor({ state: 'detached' });
    const stored = await api.get(`/api/conversations/${conversationId}/messages/`, { token: ben.token });
    expect((stored.body.results as Array<{ content: string }>).filter((message) => message.content === 'Bring the jackets')).toHaveLength(1);
  });

  it('opens a chat never opened on this phone as her lists know it, to write in with no network', async () => {
    const api = client(app.server.url);
    const matchWith = async (name: string) => {
      const other = await makeCompletedUser(app.server, { name, gender: 'male', genders_to_match: ['female'] }, { firstName: name });
      await api.post('/api/matching/', { token: other.token, json: { response: 'like', other: ana.id } });
      const matched = await api.post('/api/matching/', { token: ana.token, json: { response: 'like', other: other.id } });
      return { other, conversation: matched.body.conversation_id as number };
    };
    const dan = await matchWith('Dan');
    const eli = await matchWith('Eli');
    await api.post(`/api/conversations/${eli.conversation}/messages/`, { token: eli.other.token, json: { content: 'Meet me by the DJ booth' } });
    // Her lists as this phone last showed them: Dan a new match, a chat with Eli begun.
    await page.goto(`${app.server.url}/app/matches/`);
    await page.getByRole('link', { name: /Eli/ }).waitFor();
    await expect
      .poll(() => page.evaluate((key) => localStorage.getItem(key) ?? '', `cache:conversations:${ana.id}`))
      .toContain('Meet me by the DJ booth');

    await context.setOffline(true);
    await page.goto(`${app.server.url}/app/chat/${dan.conversation}/`);
    await page.getByText(en['chat.empty']).waitFor();
    await page.getByPlaceholder(en['chat.placeholder']).fill('Hi Dan!');
    await page.getByRole('button', { name: en['chat.send'], exact: true }).tap();
    await page.locator('.message-own', { hasText: 'Hi Dan!' }).getByText(en['chat.queued']).waitFor();
    // Eli's chat has messages this phone never fetched: it says they will come, not that there are none.
    await page.goto(`${app.server.url}/app/chat/${eli.conversation}/`);
    await page.getByText(en['chat.earlierOffline']).waitFor();
    expect(await page.getByText(en['chat.empty']).count()).toBe(0);
    await shot('offline-08-chat-never-opened-with-no-network');
    // Unseen, Eli's message stays unread on the list, also once the chat is opened from the list.
    const eliRow = page.locator('.conversation-list').getByRole('link', { name: /Eli/ });
    const backToTheList = async () => {
      await page.getByRole('link', { name: en['chat.back'] }).click();
      await eliRow.getByLabel(en['matches.unread'].replace('{count}', '1')).waitFor();
    };
    await backToTheList();
    await eliRow.click();
    await page.getByText(en['chat.earlierOffline']).waitFor();
    await backToTheList();
    await eliRow.click();
    await page.getByText(en['chat.earlierOffline']).waitFor();

    // Back online: Eli's message comes, and what she wrote to Dan goes out, once.
    await context.setOffline(false);
    await page.locator('.message-content').getByText('Meet me by the DJ booth').waitFor();
    await page.getByText(en['chat.earlierOffline']).waitFor({ state: 'detached' });
    const toDan = async () =>
      ((await api.get(`/api/conversations/${dan.conversation}/messages/`, { token: dan.other.token })).body.results as Array<{ content: string }>).map(
        (message) => message.content,
      );
    await expect.poll(toDan, { timeout: 15_000 }).toEqual(['Hi Dan!']);
  });

  it('opens a profile and the profile editor with no network as "no connection", and loads them once back', async () => {
    const cai = await makeCompletedUser(app.server, { name: 'Cai', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Cai' });

    await context.setOffline(true);
    await page.goto(`${app.server.url}/app/profiles/${cai.id}/`);
    await page.getByText(en['profileView.offline']).waitFor();
    await context.setOffline(false);
    await page.getByRole('heading', { name: /Cai, 28/ }).waitFor();

    await context.setOffline(true);
    await page.goto(`${app.server.url}/app/profile/`);
    await page.getByText(en['profile.offline']).waitFor();
    await context.setOffline(false);
    await page.getByLabel(en['profile.name']).waitFor();
    expect(await page.getByLabel(en['profile.name']).inputValue()).toBe('Ana');
  });

  it('says her matches, likes, events and plan wait for the network, not that there are none, and shows them once back', async () => {
    // Her lists as on a phone that never showed them.
    await forgetKept(`cache:conversations:${ana.id}`);
    for (const [route, offline, online] of [
      ['matches', en['matches.offline'], en['matches.noMatches']],
      ['likes', en['likes.offline'], en['likes.empty']],
      ['events', en['events.mine.offline'], en['events.mine.empty']],
    ] as const) {
      await context.setOffline(true);
      await page.goto(`${app.server.url}/app/${route}/`);
      await page.getByText(offline).waitFor();
      await shot(`offline-05-${route}-with-no-network`);
      expect(await page.getByText(online).count()).toBe(0);
      await context.setOffline(false);
      await page.getByText(online).waitFor();
    }

    // Her settings open as this phone last knew her account.
    await context.setOffline(true);
    await page.goto(`${app.server.url}/app/settings/`);
    await page.getByText(ana.email, { exact: true }).waitFor();
    await context.setOffline(false);

    // A phone that never loaded her account (it signed in, then the network went): her settings wait for it.
    const forget = () => forgetKept('cache:user');
    await forget();
    await context.setOffline(true);
    await page.goto(`${app.server.url}/app/settings/`);
    await page.getByText(en['settings.offline']).waitFor();
    await context.setOffline(false);
    await page.getByRole('heading', { name: en['settings.title'] }).waitFor();
    await page.getByText(ana.email, { exact: true }).waitFor();

    // Nor is her plan known then: no plans to buy are offered to someone who may have one.
    await forget();
    await context.setOffline(true);
    await page.goto(`${app.server.url}/app/subscribe/`);
    await page.getByText(en['subscribe.offline']).waitFor();
    await shot('offline-06-plan-with-no-network');
    expect(await page.getByRole('button', { name: en['subscribe.choose'] }).count()).toBe(0);
    await context.setOffline(false);
    await page.getByRole('button', { name: en['subscribe.choose'] }).first().waitFor();
  });

  /** Whether the avatar shows the photo, loaded: not the initials it falls back to when the photo does not load. */
  const showsPhoto = (avatar: Locator) => avatar.evaluate((image: HTMLImageElement) => image.src.includes('/media/') && image.complete && image.naturalWidth > 0);
  /** The addresses of the photos the service worker stored. */
  const storedPhotos = () =>
    page.evaluate(async (name) => ((await caches.has(name)) ? (await (await caches.open(name)).keys()).map((request) => new URL(request.url).pathname) : []), PHOTO_CACHE);

  it('shows the faces she saw in her chats, a chat and her matches with no network, after the browser let its own copies go', async () => {
    // Fay, a new match: on the strip of matches, not in the chats.
    const api = client(app.server.url);
    const fay = await makeCompletedUser(app.server, { name: 'Fay', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Fay' });
    await api.post('/api/matching/', { token: fay.token, json: { response: 'like', other: ana.id } });
    await api.post('/api/matching/', { token: ana.token, json: { response: 'like', other: fay.id } });
    const benInChats = page.locator('.conversation-list').getByRole('link', { name: /Ben/ }).locator('img.avatar');
    const fayInMatches = page.locator('.match-strip').getByRole('link', { name: /Fay/ }).locator('img.avatar');
    const benInHeader = page.locator('.chat-header img.avatar');
    const photoOf = async (avatar: Locator) => new URL((await avatar.getAttribute('src'))!, app.server.url).pathname;

    // Seen online, through the worker.
    await page.goto(`${app.server.url}/app/chat/${conversationId}/`);
    await controlled();
    await expect.poll(() => showsPhoto(benInHeader)).toBe(true);
    await page.goto(`${app.server.url}/app/matches/`);
    await expect.poll(() => showsPhoto(benInChats)).toBe(true);
    await expect.poll(() => showsPhoto(fayInMatches)).toBe(true);
    const seen = [await photoOf(benInChats), await photoOf(fayInMatches)];
    await expect.poll(storedPhotos).toEqual(expect.arrayContaining(seen));

    // More than an hour later, or the browser needed the room: its HTTP cache no longer has them.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.clearBrowserCache');
    await cdp.detach();
    await context.setOffline(true);
    await page.reload();
    await page.getByText(en['app.noNetwork'], { exact: true }).waitFor();
    await expect.poll(() => showsPhoto(benInChats), { timeout: 5000 }).toBe(true);
    await expect.poll(() => showsPhoto(fayInMatches), { timeout: 5000 }).toBe(true);
    await shot('offline-09-faces-with-no-network');
    await page.goto(`${app.server.url}/app/chat/${conversationId}/`);
    await page.getByText(en['app.noNetwork'], { exact: true }).waitFor();
    await expect.poll(() => showsPhoto(benInHeader), { timeout: 5000 }).toBe(true);
  });

  it('keeps the photos seen last, up to a bound, and none the server no longer has', async () => {
    /** Stores a made-up photo at each of these addresses, as if seen before. */
    const storeMadeUp = (addresses: string[]) =>
      page.evaluate(
        async ([name, urls]) => {
          const cache = await caches.open(name);
          for (const url of urls) await cache.put(url, new Response('a photo', { headers: { 'content-type': 'image/webp' } }));
        },
        [PHOTO_CACHE, addresses] as const,
      );
    const madeUp = (n: number) => `/media/${`made-up-photo-${n}`.padEnd(24, '0')}.webp`;
    await page.goto(`${app.server.url}/app/matches/`);
    const ben = page.locator('.conversation-list').getByRole('link', { name: /Ben/ }).locator('img.avatar');
    await expect.poll(() => showsPhoto(ben)).toBe(true);
    const bensPhoto = (await ben.getAttribute('src'))!;

    // A phone that saw 250 other faces before: the oldest go as soon as one more is stored, and those
    // seen last stay.
    await page.evaluate((name) => caches.delete(name), PHOTO_CACHE);
    await storeMadeUp(Array.from({ length: 250 }, (_, n) => `${madeUp(n)}?size=thumb`));
    expect(await page.evaluate(async (url) => (await fetch(url)).status, bensPhoto)).toBe(200);
    await expect.poll(async () => (await storedPhotos()).length, { timeout: 10_000 }).toBe(200);
    const stored = await storedPhotos();
    expect(stored).toContain(new URL(bensPhoto, app.server.url).pathname);
    expect(stored).not.toContain(madeUp(0));
    expect(stored).toContain(madeUp(249));

    // A photo deleted on the server (taken out of a profile, its account gone) answers 404: its copy goes.
    expect(await page.evaluate(async (url) => (await fetch(url)).status, `${madeUp(249)}?size=thumb`)).toBe(404);
    await expect.poll(storedPhotos).not.toContain(madeUp(249));
  });

  /**
   * A phone of its own, signed in as a new user `name`: its worker has stored the avatar of its menu, the
   * user's own photo. `photos`: how many the worker's store holds (false: no store).
   */
  async function phoneWithItsPhotoStored(name: string) {
    const user = await makeCompletedUser(app.server, { name }, { firstName: name });
    const phone = await openPhone(app.browser, { token: user.token, language: 'en' }, { serviceWorkers: 'allow' });
    const photos = () => phone.page.evaluate(async (cache) => (await caches.has(cache)) && (await (await caches.open(cache)).keys()).length, PHOTO_CACHE);
    await phone.page.goto(`${app.server.url}/app/home/`);
    await phone.page.evaluate(() => navigator.serviceWorker.ready);
    // Loaded again once the worker controls the page, so that the photo passes through it.
    await phone.page.reload();
    await expect.poll(photos).toBeGreaterThan(0);
    return { phone, photos };
  }

  it('forgets the photos it stored when she signs out', async () => {
    const { phone, photos } = await phoneWithItsPhotoStored('Gil');

    await phone.page.goto(`${app.server.url}/logout/`);
    await phone.page.waitForURL(`${app.server.url}/`);
    await expect.poll(photos).toBe(false);
    await phone.context.close();
  });

  it('does not keep a photo that was still on its way when she signed out', async () => {
    const { phone, photos } = await phoneWithItsPhotoStored('Hal');
    const photo = await phone.page.evaluate(async (name) => (await (await caches.open(name)).keys())[0]!.url, PHOTO_CACHE);

    // A second tab, of no screen of the app, asks for the photo through the worker; the server's answer is held.
    const tab = await phone.context.newPage();
    await tab.goto(`${app.server.url}/robots.txt`);
    await tab.evaluate(async () => {
      while (!navigator.serviceWorker.controller) await new Promise((resolve) => setTimeout(resolve, 50));
    });
    // The server holds its answer, past the browser's own copy (its hour gone, as on the next hour's
    // ask), until she has signed out.
    const media = app.server.app.media;
    const exists = media.exists.bind(media);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      media.exists = async (key) => {
        if (photo.includes(key)) {
          resolve();
          await new Promise<void>((go) => (release = go));
        }
        return exists(key);
      };
    });
    const answered = tab.evaluate(async (url) => (await (await fetch(url, { cache: 'no-store' })).arrayBuffer()).byteLength, photo);
    await held;
    media.exists = exists;

    // She signs out in the first tab meanwhile: the photos go, and then the held photo comes.
    await phone.page.goto(`${app.server.url}/logout/`);
    await phone.page.waitForURL(`${app.server.url}/`);
    await expect.poll(photos).toBe(false);
    release();
    expect(await answered).toBeGreaterThan(0);

    // A photo asked for after it is stored, and the held one is not: it went with her session.
    const later = new URL(photo);
    later.searchParams.set('size', later.searchParams.get('size') === 'thumb' ? 'card' : 'thumb');
    await tab.evaluate(async (url) => (await fetch(url, { cache: 'no-store' })).arrayBuffer(), later.href);
    const stored = () => phone.page.evaluate(async (name) => (await (await caches.open(name)).keys()).map((request) => request.url), PHOTO_CACHE);
    await expect.poll(stored).toContain(later.href);
    expect(await stored()).toEqual([later.href]);
    await phone.context.close();
  });

  it("shows a subscriber's plan, and its details once they can be asked for", async () => {
    await subscribeThroughTestCheckout(app.server, ana, 'yearly');
    // The plan's details cannot be had (the network drops whenever the page asks for them).
    const details = '**/api/payments/subscription/';
    await page.route(details, (route) => route.abort('internetdisconnected'));
    await page.goto(`${app.server.url}/app/subscribe/`);
    await page.getByRole('heading', { name: en['subscribe.current.title'], exact: true }).waitFor();
    await page.getByText(en['subscribe.current.offline']).waitFor();
    expect(await page.getByText(en['subscribe.current.period.yearly']).count()).toBe(0);

    // The connection goes and comes back: the details are asked for again.
    await context.setOffline(true);
    await page.getByText(en['app.noNetwork'], { exact: true }).waitFor();
    await page.unroute(details);
    await context.setOffline(false);
    await page.getByText(en['subscribe.current.period.yearly']).waitFor();
    await page.getByRole('button', { name: en['subscribe.manage'] }).waitFor();
    expect(await page.getByText(en['subscribe.current.offline']).count()).toBe(0);
  });

  it('catches up with where she is after a drop: a check-in made on another device meanwhile', async () => {
    const event = await makeEvent(app.server, ben, { name: 'Garden party' });
    await page.goto(`${app.server.url}/app/home/`);
    await page.getByRole('link', { name: new RegExp(en['deck.event.join']) }).waitFor();

    await context.setOffline(true);
    await page.getByText(en['app.noNetwork'], { exact: true }).waitFor();
    await checkIn(app.server, ana, event.code);
    await context.setOffline(false);
    await page.getByRole('region', { name: 'Garden party' }).waitFor();

    // Opened again with no network, the deck still says where she is.
    await context.setOffline(true);
    await page.reload();
    await page.getByText(en['deck.offline']).waitFor();
    await page.getByRole('region', { name: 'Garden party' }).waitFor();
    await context.setOffline(false);

    await client(app.server.url).post('/api/events/leave/', { token: ana.token });
  });

  it('opens the host screen at a door with no network once the network is back', async () => {
    const event = await makeEvent(app.server, ana, { name: 'Door test' });
    await context.setOffline(true);
    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    await page.getByText(en['host.offline']).waitFor();
    await context.setOffline(false);
    await page.getByText(en['host.scan']).waitFor();
    await page.getByText(event.code).first().waitFor();
  });

  it('never wakes the worker for the API or the socket', async () => {
    const worker = context.serviceWorkers()[0]!;
    // A second fetch listener in the worker, that only notes what reaches it.
    await worker.evaluate(() => {
      const seen: string[] = [];
      Object.assign(self, { seen });
      self.addEventListener('fetch', (event) => seen.push(new URL((event as Event & { request: Request }).request.url).pathname));
    });
    await page.evaluate(async () => {
      await fetch('/api/users/me/', { headers: { Authorization: `Token ${localStorage.getItem('auth_token')}` } });
      await fetch('/socket.io/');
      await fetch('/robots.txt');
    });
    // The file that is not the API's reached it (the listener works); the API and the socket did not.
    expect(await worker.evaluate(() => (self as unknown as { seen: string[] }).seen)).toEqual(['/robots.txt']);
  });

  it('asks the network for every page, the landing page too: an online phone never opens an older build the worker stored', async () => {
    /** Marks the app page the worker stored (`null`: takes the mark off again), as if an older build's. */
    const markStored = (mark: string | null) =>
      page.evaluate(async (marker) => {
        for (const name of await caches.keys()) {
          const cache = await caches.open(name);
          for (const request of await cache.keys()) {
            if (new URL(request.url).pathname !== '/index.html') continue;
            const stored = (await cache.match(request))!;
            const html = (await stored.text()).replace(/<meta name="build"[^>]*>/, '');
            await cache.put(request, new Response(marker ? html.replace('</head>', `${marker}</head>`) : html, { headers: stored.headers }));
          }
        }
      }, mark);
    await markStored('<meta name="build" content="the stored one">');
    try {
      // With no network, the landing page is the stored one still.
      await context.setOffline(true);
      expect((await page.goto(`${app.server.url}/`))?.fromServiceWorker()).toBe(true);
      expect(await page.locator('meta[name="build"]').getAttribute('content')).toBe('the stored one');
      await context.setOffline(false);
      for (const pathname of ['/', '/app/home/']) {
        await page.goto(`${app.server.url}${pathname}`);
        expect(await page.locator('meta[name="build"]').count(), pathname).toBe(0);
      }
    } finally {
      await markStored(null);
    }
  });

  it('takes a new build at once: its worker replaces the old one, and the app opens offline as the new build', async () => {
    // A new version goes out: a new app page, and the worker that lists it (its revision changed).
    const marker = '<meta name="build" content="the next one">';
    const indexFile = path.join(app.clientDir, 'index.html');
    const workerFile = path.join(app.clientDir, 'sw.js');
    await writeFile(indexFile, (await readFile(indexFile, 'utf8')).replace('</head>', `${marker}</head>`));
    // The build's compressed copies of the old page go with it (the server prefers them).
    await Promise.all(['.br', '.gz'].map((suffix) => rm(`${indexFile}${suffix}`, { force: true })));
    const worker = await readFile(workerFile, 'utf8');
    const listed = /\{"revision":"[0-9a-f]+","url":"index\.html"\}/;
    expect(worker).toMatch(listed);
    await writeFile(workerFile, worker.replace(listed, '{"revision":"next","url":"index.html"}'));

    // The browser looks for a new worker at every navigation (and once a day); here, at once.
    const replaced = page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          navigator.serviceWorker.addEventListener('controllerchange', () => resolve(), { once: true });
          setTimeout(() => reject(new Error('the new worker did not take over the open page')), 15_000);
        }),
    );
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.update());
    await replaced;

    await context.setOffline(true);
    await page.reload();
    await page.getByText(en['app.noNetwork'], { exact: true }).waitFor();
    expect(await page.locator('meta[name="build"]').getAttribute('content')).toBe('the next one');
  });

  it('serves the worker itself fresh, and the app page for a path the server answers with one', async () => {
    const worker = await fetch(new URL('/sw.js', app.server.url));
    expect(worker.status).toBe(200);
    expect(worker.headers.get('content-type')).toMatch(/javascript/);
    // A new build's worker reaches phones at their next open, not a year later.
    expect(worker.headers.get('cache-control')).toBe('no-cache');
    const source = await worker.text();
    // The build's own list of what to store, with the app page and every script of this build in it.
    const stored = [...source.matchAll(/"?url"?:\s*"([^"]+)"/g)].map((match) => match[1]);
    expect(stored).toContain('index.html');
    const index = await (await fetch(new URL('/app/home/', app.server.url))).text();
    for (const script of index.matchAll(/src="\/(assets\/[^"]+\.js)"/g)) expect(stored).toContain(script[1]);
  });

  it("opens the stored app, not the server's error, when a page is answered 5xx (an instance restarting for a new version)", async () => {
    await page.goto(`${app.server.url}/app/home/`);
    await controlled();
    // A closing instance answers every request 503 in the API's envelope; a proxy with no instance up, 502.
    const restarting = '**/app/matches/';
    await context.route(restarting, (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', headers: { 'retry-after': '1' }, body: JSON.stringify({ detail: 'The server is restarting.' }) }),
    );
    try {
      const opened = await page.goto(`${app.server.url}/app/matches/`);
      expect(opened?.fromServiceWorker()).toBe(true);
      expect(opened?.status()).toBe(200);
      await page.getByRole('navigation', { name: en['app.nav.label'] }).waitFor();
      expect(await page.getByText('The server is restarting.').count()).toBe(0);
    } finally {
      await context.unroute(restarting);
    }
  });
});

describe.skipIf(!ready)('a script of the build that is no longer there (Chromium, 390×844)', { timeout: 90_000 }, () => {
  const app = appInChromium();

  /**
   * A signed-in phone whose server answers 404 for the settings page's script in its first `stale`
   * page loads, as it does once a new version is out and the page still runs the old one. No service
   * worker: it would answer from its store, where the test's route cannot reach.
   */
  async function phoneAfterADeploy(stale: number) {
    const user = await makeCompletedUser(app.server);
    const { page } = await openPhone(app.browser, { token: user.token, language: 'en' });
    // Counted as each page load's request starts, before any script of it is asked for.
    let loads = 0;
    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) loads += 1;
    });
    // The settings page's script: the chunk it shares with the app's other secondary pages (vite.config.ts).
    await page.route('**/assets/app-more-*.js', (route) => (loads <= stale ? route.fulfill({ status: 404, body: 'Not found.' }) : route.continue()));
    await page.goto(`${app.server.url}/app/home/`);
    await page.getByRole('button', { name: new RegExp(en['app.userMenu']) }).click();
    await page.getByRole('menuitem', { name: en['app.settings'] }).click();
    return { page, loads: () => loads };
  }

  it('reloads the page once, which brings the new build, instead of going blank', async () => {
    const { page, loads } = await phoneAfterADeploy(1);
    await page.getByRole('heading', { name: en['settings.title'] }).waitFor();
    expect(page.url()).toBe(`${app.server.url}/app/settings/`);
    expect(loads()).toBe(2);
  });

  it('says something went wrong and offers a reload when the reload did not help, never in a loop', async () => {
    const { page, loads } = await phoneAfterADeploy(2);
    await page.getByRole('heading', { name: en['error.generic'] }).waitFor();
    await keepShot(page, 'offline-04-page-failed');
    expect(loads()).toBe(2);
    await page.getByRole('button', { name: en['error.reload'] }).click();
    await page.getByRole('heading', { name: en['settings.title'] }).waitFor();
  });
});
