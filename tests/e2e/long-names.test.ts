/**
 * A name of one long word (names may be 50 characters) on a 320 px phone, in Spanish: nothing on any
 * screen that shows it scrolls sideways. A name on one line ends in an ellipsis; a sentence that holds
 * it ("… está escribiendo…", "Has bloqueado a …") wraps inside its box, cut nowhere.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { es } from '../../shared/i18n/es';
import type { ProfileInput } from '../../shared/schemas/users';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { checkIn, makeEvent } from '../helpers/events';
import { client } from '../helpers/http';
import { subscribeThroughTestCheckout } from '../helpers/plan';
import { type ClientSocket, connect } from '../helpers/socket';
import { match } from '../realtime/fixtures';
import { entryAnimationsDone, hasChromium, keepMatchOverlay, keepShot, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();
/** 49 characters, one word. */
const LONG = 'Wolfeschlegelsteinhausenbergerdorffvoralternwaren';
const longName = (start: string) => `${start}${LONG.slice(start.length)}`;

describe.skipIf(!ready)('long names on a 320 px phone (Chromium, Spanish)', { timeout: 90_000 }, () => {
  const app = appInChromium();
  let page: Page;
  let ana: TestUser;
  /** In a conversation with Ana. */
  let wolfe: TestUser;
  /** Matched with Ana, nothing written yet: on the list's strip of new matches. */
  let strip: TestUser;
  /** In a conversation with Ana, which he ends. */
  let ender: TestUser;
  /** Likes Ana: on her likes list, and on her deck. */
  let liker: TestUser;
  let wolfeChat: number;
  let enderChat: number;
  let wolfeSocket: ClientSocket;
  const api = () => client(app.server.url);

  async function say(from: TestUser, conversationId: number, content: string) {
    expect((await api().post(`/api/conversations/${conversationId}/messages/`, { token: from.token, json: { content } })).status).toBe(201);
  }
  async function shot(name: string) {
    await entryAnimationsDone(page);
    await keepShot(page, `long-names-${name}`);
  }

  /**
   * The page does not scroll sideways, none of `selectors` reaches past the screen's edges, and none
   * has text running out of its box, unless it ends in an ellipsis there.
   */
  async function fitsTheScreen(selectors: string[]) {
    const { scrollWidth, innerWidth, outside, spilling } = await page.evaluate((wanted) => {
      const found = wanted.flatMap((selector) => [...document.querySelectorAll(selector)].map((element) => ({ selector, element })));
      const offScreen = found.filter(({ element }) => {
        const box = element.getBoundingClientRect();
        return box.left < -0.5 || box.right > window.innerWidth + 0.5;
      });
      const spills = found.filter(({ element }) => {
        const style = getComputedStyle(element);
        const ellipsis = style.textOverflow === 'ellipsis' && style.overflowX !== 'visible';
        return element.scrollWidth > element.clientWidth + 1 && !ellipsis;
      });
      const describe = ({ selector, element }: { selector: string; element: Element }) =>
        `${selector}: ${Math.round(element.getBoundingClientRect().right)} / ${element.scrollWidth}`;
      return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, outside: offScreen.map(describe), spilling: spills.map(describe) };
    }, selectors);
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
    expect(outside).toEqual([]);
    expect(spilling).toEqual([]);
  }

  beforeAll(async () => {
    const man: Partial<ProfileInput> = { gender: 'male', genders_to_match: ['female'] };
    ana = await makeCompletedUser(app.server, { name: 'Ana', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Ana' });
    wolfe = await makeCompletedUser(app.server, { name: LONG, ...man }, { firstName: 'Wolfe' });
    strip = await makeCompletedUser(app.server, { name: longName('Hubert'), ...man }, { firstName: 'Hubert' });
    ender = await makeCompletedUser(app.server, { name: longName('Enrique'), ...man }, { firstName: 'Enrique' });
    liker = await makeCompletedUser(app.server, { name: longName('Leopold'), ...man }, { firstName: 'Leopold' });
    wolfeChat = await match(app.server, wolfe, ana);
    await match(app.server, strip, ana);
    enderChat = await match(app.server, ender, ana);
    await say(wolfe, wolfeChat, '¡Hola, Ana!');
    await say(ender, enderChat, 'Hola');
    await api().post('/api/matching/', { token: liker.token, json: { response: 'like', other: ana.id } });
    wolfeSocket = await connect(app.server.url, wolfe.token);
    ({ page } = await openPhone(app.browser, { token: ana.token, language: 'es' }));
    await page.setViewportSize({ width: 320, height: 640 });
  }, 120_000);
  afterAll(() => {
    wolfeSocket?.close();
  });

  it('the list of chats: its rows and its strip of new matches, under the top bar and above the bottom nav', async () => {
    await page.goto(`${app.server.url}/app/matches/`);
    await page.locator('.conversation-name', { hasText: LONG }).waitFor();
    await page.locator('.match-chip', { hasText: longName('Hubert') }).waitFor();
    await fitsTheScreen(['.top-bar', '.bottom-nav', '.match-chip span', '.conversation', '.conversation-name', '.conversation-last', '.conversation-meta']);
    await shot('01-matches');
  });

  it('the chat, while the partner is typing', async () => {
    await page.goto(`${app.server.url}/app/chat/${wolfeChat}`);
    await page.locator('.message', { hasText: '¡Hola, Ana!' }).waitFor();
    // Typing is said once and kept by no one: only once her tab's socket is in its rooms (it has asked
    // who is online: Wolfe is) can it hear it. The page opened just now, and shows the chat before.
    await page.locator('.chat-status', { hasText: es['presence.onlineNow'] }).waitFor();
    wolfeSocket.emit('typing', { conversation_id: wolfeChat });
    await page.locator('.typing', { hasText: es['chat.typing'].replace('{name}', LONG) }).waitFor();
    await fitsTheScreen(['.top-bar', '.chat-header', '.chat-header h1', '.typing', '.composer', '.bottom-nav']);
    await shot('02-chat-typing');
  });

  it('the notice of a chat the partner ended', async () => {
    await page.goto(`${app.server.url}/app/chat/${enderChat}`);
    await page.locator('.message', { hasText: 'Hola' }).waitFor();
    expect((await api().post(`/api/users/${ana.id}/block/`, { token: ender.token })).status).toBeLessThan(300);
    await page.waitForURL('**/app/matches/');
    await page.locator('.ended-notice').getByText(es['chat.ended'].replace('{name}', longName('Enrique'))).waitFor();
    await fitsTheScreen(['.ended-notice', '.ended-notice p', '.ended-notice button']);
    await shot('03-ended-notice');
  });

  it('the toast of a block', async () => {
    await page.goto(`${app.server.url}/app/chat/${wolfeChat}`);
    await page.locator('.message', { hasText: '¡Hola, Ana!' }).waitFor();
    await page.getByRole('button', { name: es['safety.menu'] }).click();
    await page.getByRole('menu').getByRole('menuitem', { name: es['safety.block'] }).click();
    await page.getByRole('dialog').getByRole('button', { name: es['safety.block.confirm'] }).click();
    await page.waitForURL('**/app/matches/');
    await page.locator('.toast', { hasText: LONG }).waitFor();
    await fitsTheScreen(['.toast', '.toast p', '.toast-close']);
    await shot('04-toast');
  });

  it('the list of ended chats', async () => {
    await page.goto(`${app.server.url}/app/settings/ended/`);
    await page.locator('.person-row', { hasText: longName('Enrique') }).waitFor();
    await fitsTheScreen(['.person-row', '.person-name', '.person-row .btn']);
    await shot('05-ended-chats');
  });

  it('the list of blocked people: Report and Unblock, each a 44 px target, and the report form from it', async () => {
    await page.goto(`${app.server.url}/app/settings/blocked/`);
    const row = page.locator('.person-row', { hasText: LONG });
    await row.waitFor();
    await fitsTheScreen(['.person-row', '.person-name', '.person-row .btn']);
    const targets = await row.locator('.btn').evaluateAll((buttons) =>
      buttons.map((button) => ({ text: button.textContent, width: button.getBoundingClientRect().width, height: button.getBoundingClientRect().height })),
    );
    expect(targets.map((target) => target.text)).toEqual([es['safety.report'], es['blocked.unblock']]);
    for (const target of targets) expect(Math.min(target.width, target.height), target.text ?? '').toBeGreaterThanOrEqual(44);
    await shot('05b-blocked');
    await row.getByRole('button', { name: es['safety.report'] }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('.report-note').getByText(es['safety.report.staysBlocked'].replace('{name}', LONG)).waitFor();
    await fitsTheScreen(['.sheet', '.sheet h2', '.report-note']);
    await shot('05c-report-blocked');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('the likes list', async () => {
    await subscribeThroughTestCheckout(app.server, ana);
    await page.goto(`${app.server.url}/app/likes/`);
    await page.locator('.like-card-name', { hasText: longName('Leopold') }).waitFor();
    await fitsTheScreen(['.like-card', '.like-card-name']);
    await shot('06-likes');
  });

  it('the deck’s card, and the match overlay', async () => {
    await page.goto(`${app.server.url}/app/home/`);
    await page.getByTestId('swipe-card').filter({ hasText: longName('Leopold') }).waitFor();
    await fitsTheScreen(['.swipe-card', '.swipe-card-info', '.swipe-card-info *']);
    // On a shorter phone the card is short, and the name is cut at two lines: the age still shows.
    await page.setViewportSize({ width: 320, height: 568 });
    const { card, name, age, ageLines } = await page.getByTestId('swipe-card').evaluate((element) => {
      const box = (selector: string) => element.querySelector(selector)!.getBoundingClientRect();
      const ageText = document.createRange();
      ageText.selectNodeContents(element.querySelector('.age')!);
      return { card: element.getBoundingClientRect().height, name: box('h2'), age: box('.age'), ageLines: ageText.getClientRects().length };
    });
    expect(card).toBeLessThanOrEqual(300);
    expect(ageLines).toBe(1);
    expect(age.bottom).toBeLessThanOrEqual(name.bottom);
    expect(age.right).toBeLessThanOrEqual(name.right);
    await shot('07-deck-card-short');
    await page.setViewportSize({ width: 320, height: 640 });
    await keepMatchOverlay(page);
    await page.keyboard.press('ArrowRight');
    await page.locator('.match-overlay').getByText(es['deck.match.text'].replace('{name}', longName('Leopold'))).waitFor();
    await fitsTheScreen(['.match-overlay p', '.match-overlay .btn']);
    await shot('07-match-overlay');
  });

  it('someone’s profile, and the report form about them', async () => {
    await page.goto(`${app.server.url}/app/profiles/${liker.id}`);
    await page.getByRole('heading', { level: 1, name: new RegExp(longName('Leopold')) }).waitFor();
    await fitsTheScreen(['.profile-info', '.profile-info h1', '.top-bar', '.bottom-nav']);
    await shot('08-profile');
    await page.getByRole('button', { name: es['safety.menu'] }).click();
    await page.getByRole('menuitem', { name: es['safety.report'] }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('.report-note').waitFor();
    await fitsTheScreen(['.sheet', '.sheet h2', '.report-note']);
    await shot('09-report');
  });

  it('an e-mail whose domain alone is longer than the line, in the banner that asks to confirm it', async () => {
    const email = `carla.maria.fernandez.lopez.de.la.vega.${Date.now()}@universidad-complutense-de-madrid.example.com`;
    const carla = await makeCompletedUser(app.server, { name: 'Carla', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Carla', email });
    const phone = await openPhone(app.browser, { token: carla.token, language: 'es' });
    try {
      await phone.page.setViewportSize({ width: 320, height: 640 });
      await phone.page.goto(`${app.server.url}/app/home/`);
      const banner = phone.page.locator('.verify-banner');
      await banner.waitFor();
      const parts = await banner.evaluate((element) => {
        const box = element.getBoundingClientRect();
        const part = (name: string) => element.querySelector(`.verify-banner-${name}`)!.getBoundingClientRect();
        return { right: box.right, local: part('local').width, domain: part('domain').right };
      });
      // The name keeps its first letters (it was cut to nothing), and the domain ends inside the banner.
      expect(parts.local).toBeGreaterThan(20);
      expect(parts.domain).toBeLessThanOrEqual(parts.right);
      await keepShot(phone.page, 'long-names-13-long-email-banner');
    } finally {
      await phone.context.close();
    }
  });

  // Last: checked in, Ana's deck is the event's.
  it('an event named with one long word: its page, the list of events, its host screen and its edit form', async () => {
    const name = `${LONG}${LONG}`;
    const event = await makeEvent(app.server, ana, { name });
    await page.goto(`${app.server.url}/e/${event.code}`);
    await page.getByRole('heading', { level: 1, name }).waitFor();
    await fitsTheScreen(['.auth-card h1', '.event-summary']);
    await shot('10-event-page');

    await checkIn(app.server, ana, event.code);
    await page.goto(`${app.server.url}/app/events/`);
    await page.locator('.event-summary-name', { hasText: name }).waitFor();
    await page.locator('.my-event-name', { hasText: name }).waitFor();
    await fitsTheScreen(['.event-summary-name', '.my-event-name', '.top-bar', '.bottom-nav']);
    await shot('11-events');

    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    await page.locator('.page-title', { hasText: name }).waitFor();
    await fitsTheScreen(['.page-title']);
    await shot('12-host');
    await page.goto(`${app.server.url}/app/events/${event.id}/edit/`);
    await expect.poll(() => page.getByLabel(es['events.new.name']).inputValue()).toBe(name);
    // The field scrolls its text, as a field does; the page does not.
    await fitsTheScreen(['.page-title', 'form']);
  });

  it('a venue given as a map link, one long word: the event page, the list of events and the host screen', async () => {
    const venue = `https://maps.example.com/place/${'Sala'.repeat(30)}`;
    const event = await makeEvent(app.server, ana, { name: 'Verbena', venue });
    await page.goto(`${app.server.url}/e/${event.code}`);
    await page.locator('.event-venue', { hasText: venue }).waitFor();
    await fitsTheScreen(['.event-venue']);

    await checkIn(app.server, ana, event.code);
    await page.goto(`${app.server.url}/app/events/`);
    await page.locator('.event-venue', { hasText: venue }).waitFor();
    await fitsTheScreen(['.event-venue']);

    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    await page.locator('.event-venue', { hasText: venue }).waitFor();
    await fitsTheScreen(['.event-venue']);
    await shot('13-host-venue');
  });
});
