/**
 * A 320 × 568 phone (an iPhone SE's screen), in Spanish, with everything above the deck showing at
 * once: the banner asking to confirm the e-mail, the event bar, and the notice that the likes are
 * spent. The card stays a picture of someone, another's profile shows its photo across the column,
 * the top bar the user's whole name, and a toast hides neither the top bar nor a page's way back, nor
 * the deck's buttons. The events page starts each card's title at the card's top; the organizer's host
 * screen wraps its stats' labels between words.
 */
import { sql } from 'drizzle-orm';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_DAILY_LIKES, SWIPE_THRESHOLD_PX } from '../../shared/constants';
import { es } from '../../shared/i18n/es';
import type { ProfileInput } from '../../shared/schemas/users';
import { checkIn, makeEvent } from '../helpers/events';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { type ClientSocket, connect } from '../helpers/socket';
import { match } from '../realtime/fixtures';
import { entryAnimationsDone, hasChromium, keepShot, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe.skipIf(!ready)('a 320 × 568 phone with the banner, the event bar and the likes notice (Chromium, Spanish)', { timeout: 90_000 }, () => {
  const app = appInChromium();
  let page: Page;
  let ana: TestUser;
  /** On Ana's deck: at her event. */
  let ben: TestUser;
  /** In a chat with Ana, online. */
  let carl: TestUser;
  let carlChat: number;
  /** Writes to Ana from another chat: his messages are the toasts. */
  let dan: TestUser;
  let danChat: number;
  let carlSocket: ClientSocket;
  /** Ben's, with Ana and him in it. */
  let eventId: number;

  async function box(locator: Locator): Promise<Box> {
    const found = await locator.boundingBox();
    if (!found) throw new Error(`${locator} has no box`);
    return found;
  }
  async function shot(name: string) {
    await entryAnimationsDone(page);
    await keepShot(page, `small-phone-${name}`);
  }
  /** Dan writes; his toast shows over the screen Ana is on (closed first if one is there). */
  async function danWrites(content: string): Promise<Box> {
    const open = page.locator('.toast');
    if (await open.count()) await open.getByRole('button', { name: es['toast.close'] }).click();
    expect((await client(app.server.url).post(`/api/conversations/${danChat}/messages/`, { token: dan.token, json: { content } })).status).toBe(201);
    const toast = page.locator('.toast', { hasText: content });
    await toast.waitFor();
    await entryAnimationsDone(page);
    return box(toast);
  }

  beforeAll(async () => {
    const man: Partial<ProfileInput> = { gender: 'male', genders_to_match: ['female'] };
    // Her e-mail not confirmed: the banner shows.
    ana = await makeCompletedUser(app.server, { name: 'Ana', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Julia', lastName: 'Romero' });
    ben = await makeCompletedUser(app.server, { name: 'Ben', bio: 'DJ esta noche, bailarín el resto del tiempo. Pregúntame por el vinilo.', ...man }, { firstName: 'Ben' });
    carl = await makeCompletedUser(app.server, { name: 'Carl', ...man }, { firstName: 'Carl' });
    dan = await makeCompletedUser(app.server, { name: 'Dan', ...man }, { firstName: 'Dan' });
    carlChat = await match(app.server, carl, ana);
    danChat = await match(app.server, dan, ana);
    expect((await client(app.server.url).post(`/api/conversations/${carlChat}/messages/`, { token: carl.token, json: { content: '¡Hola, Ana!' } })).status).toBe(201);
    const event = await makeEvent(app.server, ben, { name: 'Fiesta de lanzamiento en la azotea' });
    eventId = event.id;
    await checkIn(app.server, ben, event.code);
    await checkIn(app.server, ana, event.code);
    // Her likes of the day spent: the deck says when they come back.
    await app.server.app.db.execute(sql`
      insert into likes_given (user_id, to_user_id, given_at)
      select ${ana.id}, 1000000 + g, now() - g * interval '1 second' from generate_series(1, ${FREE_DAILY_LIKES}) g`);
    carlSocket = await connect(app.server.url, carl.token);
    ({ page } = await openPhone(app.browser, { token: ana.token, language: 'es' }));
    await page.setViewportSize({ width: 320, height: 568 });
  }, 120_000);
  afterAll(() => {
    carlSocket?.close();
  });

  it('the deck: the card keeps a picture’s height, its words at its foot, the buttons above the nav', async () => {
    await page.goto(`${app.server.url}/app/home/`);
    const card = page.getByTestId('swipe-card').filter({ hasText: 'Ben' });
    await card.waitFor();
    await page.locator('.verify-banner').waitFor();
    await page.locator('.event-bar').waitFor();
    await page.getByTestId('likes-out').getByRole('link', { name: es['deck.likesUpsell'] }).waitFor();
    await shot('01-deck');
    // It was a 296 × 75 strip, its name and bio over all of it.
    const [photo, words, buttons, nav] = await Promise.all([box(card), box(card.locator('.swipe-card-info')), box(page.locator('.deck .deck-actions')), box(page.locator('.bottom-nav'))]);
    expect(photo.height).toBeGreaterThanOrEqual(180);
    expect(words.height).toBeLessThanOrEqual(photo.height * 0.45);
    expect(buttons.y + buttons.height).toBeLessThanOrEqual(nav.y);
  });

  it('the deck: a card dragged just past the threshold shows its stamp whole on the screen (it read "ME GUS")', async () => {
    const card = await box(page.getByTestId('swipe-card'));
    const [x, y] = [card.x + card.width / 2, card.y + card.height / 2];
    await page.mouse.move(x, y);
    await page.mouse.down();
    try {
      // Past the threshold by a step of the finger (the gesture counts its movement from a few px in).
      for (let step = 1; step <= 10; step += 1) await page.mouse.move(x + ((SWIPE_THRESHOLD_PX + 10) * step) / 10, y);
      const stamp = page.locator('.stamp-like');
      await expect.poll(() => stamp.evaluate((element) => getComputedStyle(element).opacity)).toBe('1');
      const { right, screen } = await stamp.evaluate((element) => ({ right: element.getBoundingClientRect().right, screen: innerWidth }));
      expect(right).toBeLessThanOrEqual(screen);
    } finally {
      // Let go back where it started: decided neither way.
      await page.mouse.move(x, y);
      await page.mouse.up();
    }
  });

  it('the top bar: her whole name (it showed "Julia Rom…"), beside the other language', async () => {
    const name = page.locator('.top-user-name');
    expect(await name.textContent()).toBe('Julia Romero');
    expect(await name.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    expect(await page.locator('.top-bar .lang-switch').innerText()).toBe('EN');
  });

  it('the top bar on a 360 px phone, with the heart and both languages: her whole name too (it showed "Julia Rom…"), and the heart 44 px across', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      const name = page.locator('.top-user-name');
      await expect.poll(() => page.locator('.top-bar .logo').isVisible()).toBe(true);
      // 21 px either side of its middle are the heart's, not the avatar's (it had 40 px there).
      const heartTaps = await page.locator('.top-bar .logo').evaluate((heart) => {
        const box = heart.getBoundingClientRect();
        const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
        return [-21, 21].map((dx) => heart.contains(document.elementFromPoint(x + dx, y)));
      });
      expect(heartTaps).toEqual([true, true]);
      expect(await page.locator('.top-bar .lang-switch').innerText()).toMatch(/ES\s*EN/);
      // Its text’s own width, not scrollWidth: that rounds, and a name 0.4 px too wide still ends in "…".
      const widths = await name.evaluate((element) => {
        const text = document.createRange();
        text.selectNodeContents(element);
        return { text: text.getBoundingClientRect().width, room: element.getBoundingClientRect().width };
      });
      expect(widths.text).toBeLessThanOrEqual(widths.room);
    } finally {
      await page.setViewportSize({ width: 320, height: 568 });
    }
  });

  it('another’s profile: the photo the column’s width, above the name, the name above the buttons', async () => {
    await page.getByTestId('swipe-card').tap();
    const heading = page.getByRole('heading', { level: 1, name: /Ben, 28/ });
    await heading.waitFor();
    await shot('02-profile');
    // It was 105 px wide between wide margins.
    const [gallery, name, buttons] = await Promise.all([box(page.getByTestId('gallery')), box(heading), box(page.locator('.profile-view .deck-actions'))]);
    expect(gallery.width).toBeGreaterThanOrEqual(320 - 2 * 16 - 1);
    expect(gallery.height).toBeGreaterThanOrEqual(140);
    expect(gallery.y + gallery.height).toBeLessThanOrEqual(name.y);
    expect(name.y + name.height).toBeLessThanOrEqual(buttons.y);
  });

  it('a toast: below the top bar and a page’s way back, clear of the deck’s buttons', async () => {
    const topBar = () => box(page.locator('.top-bar'));
    // On the profile, its Back.
    const onProfile = await danWrites('¿Dónde estás? Estoy junto a la barra, al lado del DJ.');
    expect(overlaps(onProfile, await topBar())).toBe(false);
    expect(overlaps(onProfile, await box(page.locator('.profile-view .back-link')))).toBe(false);
    await shot('03-toast-profile');

    // In a chat, its header's back button and the partner's name; once Ana's socket hears who is online.
    await page.locator('.bottom-nav').getByRole('link', { name: es['app.nav.chats'] }).click();
    await page.locator('.conversation', { hasText: 'Carl' }).click();
    await page.waitForURL(`**/app/chat/${carlChat}**`);
    await page.locator('.chat-status', { hasText: es['presence.onlineNow'] }).waitFor();
    const inChat = await danWrites('Te veo en cinco minutos.');
    expect(overlaps(inChat, await topBar())).toBe(false);
    expect(overlaps(inChat, await box(page.locator('.chat-header')))).toBe(false);
    await shot('04-toast-chat');

    // On the deck, its buttons.
    await page.locator('.bottom-nav').getByRole('link', { name: es['app.nav.home'] }).click();
    await page.getByTestId('swipe-card').waitFor();
    const onDeck = await danWrites('¡Ya llego!');
    expect(overlaps(onDeck, await topBar())).toBe(false);
    expect(overlaps(onDeck, await box(page.locator('.deck .deck-actions')))).toBe(false);
    await shot('05-toast-deck');
  });

  it('the events page: each card’s title row at the top of its card, as "Mis eventos" is (the others sat 20 px lower)', async () => {
    await page.goto(`${app.server.url}/app/events/`);
    await page.getByRole('heading', { name: es['events.current.title'] }).waitFor();
    // How far below the card's border and padding its first row (its title, or the title and a button) starts.
    const gaps = await page.locator('.event-card').evaluateAll((cards) =>
      cards.map((card) => {
        const style = getComputedStyle(card);
        const start = card.getBoundingClientRect().top + parseFloat(style.borderTopWidth) + parseFloat(style.paddingTop);
        return `${card.querySelector('.section-title')!.textContent}: ${Math.round(card.firstElementChild!.getBoundingClientRect().top - start)}`;
      }),
    );
    expect(gaps).toEqual([`${es['events.current.title']}: 0`, `${es['events.join.title']}: 0`, `${es['events.mine.title']}: 0`]);
    await shot('07-events');
  });

  it('the host screen: its stats’ labels wrap between words (it showed "Conversacione / s iniciadas")', async () => {
    const { context, page: host } = await openPhone(app.browser, { token: ben.token, language: 'es' });
    await host.setViewportSize({ width: 320, height: 568 });
    await host.goto(`${app.server.url}/app/events/${eventId}/host/`);
    const stats = host.locator('.host-stats');
    await stats.getByText(es['host.conversations']).waitFor();
    // Each word of each label on one line: its rectangles all at one height.
    const broken = await stats.locator('dt').evaluateAll((labels) =>
      labels.flatMap((label) => {
        const text = label.firstChild as Text;
        return [...text.data.matchAll(/\S+/g)].flatMap((word) => {
          const range = document.createRange();
          range.setStart(text, word.index);
          range.setEnd(text, word.index + word[0].length);
          return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > 1 ? [word[0]] : [];
        });
      }),
    );
    expect(broken).toEqual([]);
    await stats.scrollIntoViewIfNeeded();
    await entryAnimationsDone(host);
    await keepShot(host, 'small-phone-06-host-stats');
    await context.close();
  });
});
