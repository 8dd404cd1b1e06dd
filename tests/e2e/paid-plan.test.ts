/**
 * What the paid plan buys, in Debian's Chromium on a phone-sized screen against the real server:
 * "Likes you" shows blurred placeholders and the upgrade call to a free user; after subscribing
 * through the local test checkout the same page shows the people, and a like from there opens the
 * match overlay. On the deck: undo brings a passed card back, after a reload too (on an empty deck, in
 * view above the bottom bar of a small phone), and a free user out of likes is told when they come
 * back, until a plan bought on their other phone lifts it at once.
 * "Manage subscription" leads to the test portal, whose cancellation ends the perks; the subscribe page
 * then promises no second free trial. Screenshots land in tests/e2e/artifacts/paid-*.png.
 */
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/client';
import { FREE_DAILY_LIKES } from '../../shared/constants';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { checkIn, makeEvent } from '../helpers/events';
import { birthDateForAge, makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { imageBytes } from '../helpers/images';
import { endCancelledTestPlan, subscribeThroughTestCheckout } from '../helpers/plan';
import { aboveTheNav, deckSettled, entryAnimationsDone, hasChromium, keepMatchOverlay, keepShot, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

describe.skipIf(!ready)('the paid plan in the browser (Chromium, 390×844)', { timeout: 120_000 }, () => {
  // Reactions past the per-minute limit: one test spends a free user's 100 likes over HTTP first.
  const app = appInChromium({ limits: { reaction: { max: 1000, windowMs: 60_000 } } });

  async function phoneFor(user: TestUser): Promise<{ page: Page; shot: (name: string) => Promise<unknown> }> {
    const { page } = await openPhone(app.browser, { token: user.token, language: 'en' });
    page.on('pageerror', (error) => console.error('page error:', error));
    return { page, shot: (name) => keepShot(page, `paid-${name}`) };
  }

  const react = async (from: TestUser, to: TestUser, response: 'like' | 'dislike' | 'skip') => {
    const reply = await client(app.server.url).post('/api/matching/', { token: from.token, json: { response, other: to.id } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  };

  it('a free user sees blurred likes and the upgrade call; subscribed, the people, and a like from there is a match', async () => {
    const me = await makeCompletedUser(app.server, { name: 'Lucía' }, { firstName: 'Lucía', lastName: 'García' });
    const names = ['Marco', 'Dani', 'Noor'];
    const colors = ['#f97316', '#0ea5e9', '#84cc16'];
    const admirers: TestUser[] = [];
    for (const [i, name] of names.entries()) {
      const photo = await imageBytes('png', { width: 300, height: 400, color: colors[i] });
      const admirer = await makeCompletedUser(app.server, { name, image: `data:image/png;base64,${photo.toString('base64')}` });
      await react(admirer, me, 'like');
      admirers.push(admirer);
    }
    const { page, shot } = await phoneFor(me);

    // The way in: on the chats page, first.
    await page.goto(`${app.server.url}/app/matches/`);
    const link = page.getByTestId('likes-link');
    await link.waitFor();
    expect(await link.textContent()).toContain('3 people like you');
    await shot('01-matches-likes-link');
    await link.click();
    await page.waitForURL('**/app/likes/');

    await expect.poll(() => page.getByTestId('like-placeholder').count()).toBe(3);
    await page.getByRole('heading', { name: en['likes.locked.title'] }).waitFor();
    // Nothing of the people themselves reaches the page: no names, no photos.
    const html = await page.content();
    for (const name of names) expect(html).not.toContain(name);
    expect(await page.locator('.likes img').count()).toBe(0);
    await shot('02-likes-locked');

    await page.getByRole('link', { name: en['likes.locked.cta'] }).click();
    await page.waitForURL('**/app/subscribe/');
    const starter = page.getByTestId('plan-starter');
    await starter.waitFor();
    expect(await starter.textContent()).toContain(en['subscribe.starter.1']);
    expect(await starter.textContent()).toContain(en['subscribe.starter.3'].replace('{likes}', String(FREE_DAILY_LIKES)));
    await shot('03-subscribe-perks');
    await starter.getByRole('button', { name: en['subscribe.choose'] }).click();
    await page.getByRole('button', { name: 'Complete test checkout' }).click();
    await page.waitForURL(/\/app\/subscribe\/\?success=true&session_id=/);
    await page.getByRole('heading', { name: en['subscribe.success.title'] }).waitFor();

    await page.goto(`${app.server.url}/app/likes/`);
    // A whole page's load first, in the browser's own time: a one-second poll from the navigation
    // ran out on a loaded machine (0 cards, the page not up yet).
    await page.getByTestId('like-card').nth(2).waitFor();
    expect(await page.getByTestId('like-card').count()).toBe(3);
    // Newest first.
    const shown = await page.getByTestId('like-card').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-card-id')));
    expect(shown).toEqual(admirers.map((admirer) => String(admirer.id)).reverse());
    // Each card's photo is the server's card-sized copy, not the whole photo.
    const photo = page.getByTestId('like-card').first().locator('img[src^="/media/"]');
    await photo.waitFor();
    expect(await photo.getAttribute('src')).toMatch(/\.webp\?size=card$/);
    await expect.poll(() => photo.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true);
    await shot('04-likes-unlocked');

    // The overlay held past its 2 s, so that its picture shows it at rest rather than half-way in.
    await keepMatchOverlay(page);
    await page.getByRole('button', { name: en['likes.like'].replace('{name}', 'Noor'), exact: true }).click();
    await page.getByRole('alertdialog', { name: en['deck.match.title'] }).getByText(en['deck.match.text'].replace('{name}', 'Noor')).waitFor();
    await entryAnimationsDone(page);
    await shot('05-likes-match');
    await expect.poll(() => page.getByTestId('like-card').count()).toBe(2);
    const conversations = await client(app.server.url).get('/api/conversations/empty/', { token: me.token });
    expect(conversations.body.results.map((c: { name: string }) => c.name)).toContain('Noor');

    // A profile opened from the list: Back, and an answer given there, come back to the list.
    await page.keyboard.press('Escape');
    await page.locator('.match-overlay').waitFor({ state: 'detached' });
    await page.getByTestId('like-card').first().locator('a').click();
    await page.waitForURL('**/app/profiles/*');
    await page.getByRole('link', { name: en['profileView.back'] }).click();
    await page.waitForURL('**/app/likes/');
    await page.getByTestId('like-card').first().locator('a').click();
    await page.getByRole('button', { name: en['profileView.reject'] }).click();
    await page.waitForURL('**/app/likes/');
    await expect.poll(() => page.getByTestId('like-card').count()).toBe(1);
  });

  it('the deck tells a free user when likes come back, and what undo would do', async () => {
    const me = await makeCompletedUser(app.server, { name: 'Sam' });
    const targets = await Promise.all([1, 2].map(() => makeCompletedUser(app.server)));
    // Two on his deck he has not answered yet (the targets are disliked below), so that a card follows
    // the one he passes on, whether or not other tests ran first.
    await Promise.all(['Gil', 'Hana'].map((name) => makeCompletedUser(app.server, { name })));
    // 100 likes given (each taken back, so the next one is a new like).
    for (let i = 0; i < FREE_DAILY_LIKES; i++) {
      await react(me, targets[i % 2]!, 'like');
      await react(me, targets[i % 2]!, 'dislike');
    }
    const { page, shot } = await phoneFor(me);
    await page.goto(`${app.server.url}/app/home/`);
    const card = page.getByTestId('swipe-card');
    await card.waitFor();
    const out = page.getByTestId('likes-out');
    await out.waitFor();
    // The window is a day long: likes used now come back tomorrow (at a time whose space is a no-break one).
    expect(await out.textContent()).toMatch(/You have used your 100 likes\. More tomorrow at \d{1,2}:\d{2}(\s[AP]M)?\./);
    await out.getByRole('link', { name: en['deck.likesUpsell'] }).waitFor();
    await shot('06-deck-out-of-likes');

    // A like is refused on the spot: the card stays.
    const first = await card.getAttribute('data-card-id');
    await deckSettled(page);
    await page.getByRole('button', { name: en['deck.like'], exact: true }).click();
    expect(await page.getByTestId('swipe-card').getAttribute('data-card-id')).toBe(first);

    // Dislikes still work, and undo says it is part of the plan.
    await page.getByRole('button', { name: en['deck.dislike'] }).click();
    await expect.poll(() => page.getByTestId('swipe-card').getAttribute('data-card-id')).not.toBe(first);
    const undo = page.getByRole('button', { name: en['deck.undo'] });
    await expect.poll(() => undo.isEnabled()).toBe(true);
    await undo.click();
    await page.getByTestId('undo-upsell').waitFor();
    // One plan notice at a time: the likes' goes while undo's is up.
    expect(await out.count()).toBe(0);
    await shot('07-deck-undo-upsell');
    // On small phones, with the e-mail and event banners above, the card's name and words still show.
    for (const [width, height] of [
      [320, 640],
      [320, 568],
    ] as const) {
      await page.setViewportSize({ width, height });
      await expect
        .poll(async () => {
          const info = (await page.locator('.swipe-card-info h2').boundingBox())!;
          const upsell = (await page.getByTestId('undo-upsell').boundingBox())!;
          return upsell.y + upsell.height <= info.y;
        })
        .toBe(true);
      await shot(`07b-deck-undo-upsell-${width}x${height}`);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId('undo-upsell').getByRole('button', { name: en['deck.dismiss'] }).click();
    await out.waitFor();

    // A like from someone's profile, refused for want of likes, lands on the deck that says why.
    await page.goto(`${app.server.url}/app/profiles/${targets[0]!.id}`);
    await page.getByRole('button', { name: en['profileView.like'], exact: true }).click();
    await page.waitForURL('**/app/home/');
    await page.getByTestId('likes-out').waitFor();
    expect(await page.getByText(en['profileView.notSent']).count()).toBe(0);
  });

  it('keeps undo whole above the bottom bar on an empty deck, on small phones in Spanish, under the e-mail banner', async () => {
    // At an event, whose deck is its room: one person to pass on, and when none is left the room's
    // longer words and the way to the preferences, above undo.
    const me = await makeCompletedUser(app.server, { name: 'Nora', gender: 'female', genders_to_match: ['male'] });
    const other = await makeCompletedUser(app.server, { name: 'Hugo', gender: 'male', genders_to_match: ['female'] });
    const event = await makeEvent(app.server, me, { name: 'Fiesta de la terraza del barrio' });
    for (const user of [me, other]) await checkIn(app.server, user, event.code);
    const { page } = await openPhone(app.browser, { token: me.token, language: 'es' });
    await page.setViewportSize({ width: 320, height: 568 });
    await page.goto(`${app.server.url}/app/home/`);
    await deckSettled(page);
    await page.getByRole('button', { name: es['deck.dislike'] }).click();
    await page.getByRole('link', { name: es['deck.changePreferences'] }).waitFor();
    const undo = page.getByRole('button', { name: es['deck.undo'] });
    await undo.waitFor();
    expect(await page.locator('.verify-banner').isVisible()).toBe(true);
    for (const [width, height] of [
      [320, 568],
      [360, 740],
    ] as const) {
      await page.setViewportSize({ width, height });
      // Whole on the first screen, clear of the bottom bar, and as big as a finger needs.
      await expect.poll(() => aboveTheNav(page, '.deck-empty-page .round-btn-undo')).toBe(true);
      const box = (await undo.boundingBox())!;
      expect(Math.min(box.width, box.height)).toBeGreaterThanOrEqual(44);
      await keepShot(page, `paid-07c-empty-deck-undo-${width}x${height}`);
    }
    // Undo is a perk: the free user's tap shows what the plan offers, under the button, brought into
    // view clear of the bottom bar (else the tap would seem to do nothing).
    await page.setViewportSize({ width: 320, height: 568 });
    await undo.click();
    const upsell = page.getByTestId('undo-upsell');
    await upsell.waitFor();
    await expect
      .poll(() =>
        upsell.evaluate((element) => {
          const box = element.getBoundingClientRect();
          return box.top >= 0 && box.bottom <= document.querySelector('.bottom-nav')!.getBoundingClientRect().top;
        }),
      )
      .toBe(true);
    await keepShot(page, 'paid-07d-empty-deck-undo-upsell-320x568');
    await page.context().close();
  });

  it('a plan bought on another phone reaches the deck at once: "no likes left" goes, and a like goes through', async () => {
    const me = await makeCompletedUser(app.server, { name: 'Carla' });
    const targets = await Promise.all([1, 2].map(() => makeCompletedUser(app.server)));
    // Two on her deck she has not answered yet, so that a card follows the one she likes, whether or
    // not other tests ran first.
    await Promise.all(['Iker', 'Joan'].map((name) => makeCompletedUser(app.server, { name })));
    for (let i = 0; i < FREE_DAILY_LIKES; i++) {
      await react(me, targets[i % 2]!, 'like');
      await react(me, targets[i % 2]!, 'dislike');
    }
    const { page, shot } = await phoneFor(me);
    // Its socket is connected once the server's CONNECT packet ("40") arrives: what is published then reaches it.
    const connected = new Promise<void>((resolve) => {
      page.on('websocket', (socket) => socket.on('framereceived', ({ payload }) => payload.toString().startsWith('40') && resolve()));
    });
    await page.goto(`${app.server.url}/app/home/`);
    const card = page.getByTestId('swipe-card');
    await card.waitFor();
    const out = page.getByTestId('likes-out');
    await out.waitFor();
    await connected;
    // Marks this document, and notes any hiding or showing: the news must come without a reload or a return to the tab.
    await page.evaluate(() => {
      Object.assign(window, { sameDocument: true });
      document.addEventListener('visibilitychange', () => Object.assign(window, { visibilityChanged: true }));
    });

    // Her other phone buys the plan through the test checkout.
    const other = await phoneFor(me);
    await other.page.goto(`${app.server.url}/app/subscribe/`);
    await other.page.getByTestId('plan-starter').getByRole('button', { name: en['subscribe.choose'] }).click();
    await other.page.getByRole('button', { name: 'Complete test checkout' }).click();
    await other.page.waitForURL(/\/app\/subscribe\/\?success=true&session_id=/);

    await out.waitFor({ state: 'detached' });
    await shot('07b-deck-plan-bought-elsewhere');
    const first = Number(await card.getAttribute('data-card-id'));
    await deckSettled(page);
    await page.getByRole('button', { name: en['deck.like'], exact: true }).click();
    await expect.poll(() => page.getByTestId('swipe-card').getAttribute('data-card-id')).not.toBe(String(first));
    const liked = async () =>
      rowsOf<{ kind: string }>(
        await app.server.app.db.execute(sql`select kind from reactions where from_user_id = ${me.id} and to_user_id = ${first}`),
      )[0]?.kind;
    await expect.poll(liked).toBe('like');
    expect(await page.evaluate(() => 'sameDocument' in window && !('visibilityChanged' in window))).toBe(true);
  });

  it('a plan bought while this phone was cut off is known once it is back: undo works without a reload', async () => {
    const me = await makeCompletedUser(app.server, { name: 'Dora' });
    await Promise.all(['Pau', 'Quim'].map((name) => makeCompletedUser(app.server, { name })));
    const { page } = await phoneFor(me);
    // Her socket's way to the server, which the test can close: the event that tells of the plan is
    // published while she has no socket, and never reaches her.
    let reachable = true;
    let connects = 0;
    await page.routeWebSocket(/\/socket\.io\//, (ws) => {
      if (!reachable) return ws.close();
      connects += 1;
      ws.connectToServer();
    });
    await page.goto(`${app.server.url}/app/home/`);
    const card = page.getByTestId('swipe-card');
    await card.waitFor();
    const sockets = () => app.server.app.io.in(`user:${me.id}`).fetchSockets();
    await expect.poll(async () => (await sockets()).length).toBe(1);
    reachable = false;
    app.server.app.io.in(`user:${me.id}`).disconnectSockets(true);
    await subscribeThroughTestCheckout(app.server, me, 'monthly');
    // Back: the catch-up reads her again, with the plan she now has.
    const reread = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/users/me/' && response.ok());
    reachable = true;
    await reread;
    expect(connects).toBe(2);

    const first = await card.getAttribute('data-card-id');
    await deckSettled(page);
    await page.getByRole('button', { name: en['deck.skip'] }).click();
    await expect.poll(() => page.getByTestId('swipe-card').getAttribute('data-card-id')).not.toBe(first);
    await page.getByRole('button', { name: en['deck.undo'] }).click();
    await expect.poll(() => page.getByTestId('swipe-card').getAttribute('data-card-id')).toBe(first);
  });

  it('a subscriber undoes a pass: the card comes back on top; the plan page manages it through the test portal', async () => {
    // An address with nowhere to break a line (no hyphen), as the test portal shows it.
    const me = await makeCompletedUser(app.server, { name: 'Ari' }, { email: `arianna${Date.now()}${Math.random().toString().slice(2, 8)}@example.com` });
    await subscribeThroughTestCheckout(app.server, me, 'yearly');
    // Two to see, so that the deck is not empty after the pass, whether or not other tests ran first.
    await Promise.all(['Eli', 'Fer'].map((name) => makeCompletedUser(app.server, { name })));
    const { page, shot } = await phoneFor(me);
    await page.goto(`${app.server.url}/app/home/`);
    const card = page.getByTestId('swipe-card');
    await card.waitFor();
    const first = await card.getAttribute('data-card-id');
    await deckSettled(page);
    await page.getByRole('button', { name: en['deck.skip'] }).click();
    await expect.poll(() => page.getByTestId('swipe-card').getAttribute('data-card-id')).not.toBe(first);
    // Reloaded, the tab no longer remembers the pass: the server says what undo would bring back.
    const asked = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/matching/undo/' && response.ok());
    await page.reload();
    await asked;
    await card.waitFor();
    expect(await card.getAttribute('data-card-id')).not.toBe(first);
    const undo = page.getByRole('button', { name: en['deck.undo'] });
    await expect.poll(() => undo.isEnabled()).toBe(true);
    await shot('08-deck-undo-ready');
    // By keyboard: the card comes back, and the focus stays on undo, unavailable now (not on the page).
    await undo.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('swipe-card').getAttribute('data-card-id')).toBe(first);
    await expect.poll(() => undo.isEnabled()).toBe(false);
    expect(await undo.evaluate((button) => button === document.activeElement)).toBe(true);
    await shot('09-deck-undone');

    // Settings leads to the plan too, where someone looks to cancel it.
    await page.goto(`${app.server.url}/app/settings/`);
    await page.getByRole('region', { name: en['subscribe.current.title'] }).getByRole('link', { name: en['settings.plan.open'] }).click();
    await page.waitForURL('**/app/subscribe/');
    await page.getByRole('heading', { name: en['subscribe.current.title'], exact: true }).waitFor();
    await page.getByText(en['subscribe.current.period.yearly']).waitFor();
    // A first subscription: in its free trial, which the page dates.
    await page.getByTestId('current-plan').getByText(/^Free trial until \w{3} \d{1,2}, \d{4}$/).waitFor();
    // And what its end charges, while it can still be avoided.
    await page.getByTestId('current-plan').getByText(/^\$120 on \w{3} \d{1,2}, \d{4}, then every year, unless you cancel$/).waitFor();
    await shot('10-current-plan');
    await page.getByRole('button', { name: en['subscribe.manage'] }).click();
    await page.waitForURL('**/app/subscribe/test-portal/');
    await page.getByText(en['portal.banner']).waitFor();
    await shot('11-test-portal');
    // The account's address wraps inside the page on a 320 px phone: it ran past the margin to the screen's edge.
    await page.setViewportSize({ width: 320, height: 568 });
    expect(await page.getByText(me.email, { exact: true }).evaluate((line) => line.scrollWidth <= line.clientWidth)).toBe(true);
    await page.setViewportSize({ width: 390, height: 844 });
    // Asked first: keeping the plan changes nothing.
    const confirm = page.getByRole('dialog', { name: en['portal.confirm.title'] });
    await page.getByRole('button', { name: en['portal.cancel'] }).click();
    await confirm.getByRole('button', { name: en['portal.confirm.keep'] }).click();
    await confirm.waitFor({ state: 'detached' });
    expect((await client(app.server.url).get('/api/users/me/', { token: me.token })).body.has_subscription).toBe(true);
    await page.getByRole('button', { name: en['portal.cancel'] }).click();
    await confirm.getByText(en['portal.confirm.text']).waitFor();
    await entryAnimationsDone(page);
    await shot('11-test-portal-confirm');
    await confirm.getByRole('button', { name: en['portal.confirm.yes'] }).click();
    // As at Stripe, the plan stays until its period (here its free trial) ends, and the page says when.
    await page.waitForURL(`${app.server.url}/app/subscribe/`);
    await page.getByTestId('current-plan').getByText(/^Your plan ends on \w{3} \d{1,2}, \d{4}$/).waitFor();
    expect((await client(app.server.url).get('/api/users/me/', { token: me.token })).body.has_subscription).toBe(true);
    await shot('11-plan-ends-on');
    // The period over, the job ends the plan: the page follows (account:changed) with the plans for sale.
    await endCancelledTestPlan(app.server, me);
    await page.getByRole('heading', { name: en['subscribe.title'] }).waitFor();
    // The trial came with the first subscription: it is not promised again, here or on the checkout.
    const again = page.getByTestId('plan-starter').getByRole('button', { name: en['subscribe.chooseNoTrial'], exact: true });
    await again.waitFor();
    expect(await page.getByText(en['subscribe.subtitleNoTrial']).isVisible()).toBe(true);
    expect(await page.locator('.subscribe').textContent()).not.toMatch(/free trial/i);
    await shot('12-after-cancel');
    const after = await client(app.server.url).get('/api/users/me/', { token: me.token });
    expect(after.body.has_subscription).toBe(false);
    await again.click();
    await page.waitForURL(/\/app\/subscribe\/test-checkout\/cs_local_[\w-]+$/);
    const details = page.locator('.test-checkout-details');
    await details.waitFor();
    expect(await details.textContent()).not.toMatch(/trial/i);
    // No trial: the year's price is charged at once.
    expect(await details.textContent()).toContain('$120 today, then every year, unless you cancel');
  });

  it('a fast second flick decides the card that came up under it: each decision sent once, undo and the match for the right one', async () => {
    // Only one another's decks (nobody else in the suite is 66), so that the order is theirs alone.
    const sameAge = { date_of_birth: birthDateForAge(66), min_matching_age: 66, max_matching_age: 66 };
    const me = await makeCompletedUser(app.server, { name: 'Flo', ...sameAge });
    await subscribeThroughTestCheckout(app.server, me, 'yearly');
    const names = ['Gil', 'Hal', 'Ivo', 'Jan', 'Kai', 'Lou'];
    const others = await Promise.all(names.map((name) => makeCompletedUser(app.server, { name, ...sameAge })));
    const { page, shot } = await phoneFor(me);
    await page.setViewportSize({ width: 360, height: 740 });
    const sent: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/matching/') sent.push(request.postDataJSON());
    });
    const dealt = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/users/matching-profiles/');
    await page.goto(`${app.server.url}/app/home/`);
    const [a, b, c, d, e, f] = ((await (await dealt).json()) as { results: { id: number }[] }).results.map((card) => others.find((other) => other.id === card.id)!);
    // The third liked me first: liked back, it is a match.
    await react(c!, me, 'like');
    const onTop = () => page.getByTestId('swipe-card').getAttribute('data-card-id');
    await expect.poll(onTop).toBe(String(a!.id));
    const box = (await page.getByTestId('swipe-card').boundingBox())!;
    const start = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    /** A flick as at a party: 160 px in a few moves, the next one at once after it, while the card before leaves. */
    const flick = async (dx: number) => {
      await page.mouse.move(start.x, start.y);
      await page.mouse.down();
      for (let step = 1; step <= 4; step += 1) await page.mouse.move(start.x + (step * dx) / 4, start.y);
      await page.mouse.up();
    };
    const decision = (user: TestUser | undefined, response: string) => ({ other: user!.id, response });

    await flick(160);
    await flick(-160);
    await expect.poll(onTop).toBe(String(c!.id));
    await expect.poll(() => sent).toEqual([decision(a, 'like'), decision(b, 'dislike')]);
    await shot('13-deck-second-flick');
    // Undo brings back the one the second flick passed on.
    await deckSettled(page);
    const undo = page.getByRole('button', { name: en['deck.undo'] });
    await expect.poll(() => undo.isEnabled()).toBe(true);
    await undo.click();
    await expect.poll(onTop).toBe(String(b!.id));

    // A second flick's like that makes a match shows it.
    await keepMatchOverlay(page);
    await flick(-160);
    await flick(160);
    const overlay = page.locator('.match-overlay');
    await overlay.getByText(en['deck.match.title']).waitFor();
    expect(await overlay.textContent()).toContain(names[others.indexOf(c!)]);
    await page.keyboard.press('Escape');
    await overlay.waitFor({ state: 'detached' });
    await expect.poll(onTop).toBe(String(d!.id));

    // Keys as fast decide the same way.
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(onTop).toBe(String(f!.id));
    await expect
      .poll(() => sent)
      .toEqual([decision(a, 'like'), decision(b, 'dislike'), decision(b, 'dislike'), decision(c, 'like'), decision(d, 'dislike'), decision(e, 'dislike')]);
  });

  it('says a checkout that could not open where the button was pressed, on a small phone', async () => {
    const user = await makeCompletedUser(app.server);
    const { page, shot } = await phoneFor(user);
    await page.setViewportSize({ width: 360, height: 640 });
    await page.goto(`${app.server.url}/app/subscribe/`);
    const choose = page.getByTestId('plan-starter').getByRole('button', { name: en['subscribe.choose'] });
    await choose.scrollIntoViewIfNeeded();
    const alert = page.locator('.subscribe .form-error');
    // The plans' top, with the place the error will show, is scrolled away.
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);

    await page.context().setOffline(true);
    try {
      await choose.click();
      await alert.waitFor();
      // Brought into view, under nothing (the top bar, the "Reconnecting…" banner): not a screen
      // above the button that was pressed.
      // (Polled: it scrolls in the effect that follows the error's render.)
      const seen = () =>
        alert.evaluate((element) => {
          const box = element.getBoundingClientRect();
          const x = box.left + box.width / 2;
          return [box.top + 2, box.bottom - 2].every((y) => y >= 0 && y <= window.innerHeight && element.contains(document.elementFromPoint(x, y)));
        });
      await expect.poll(seen).toBe(true);
      await shot('12b-checkout-offline');
    } finally {
      await page.context().setOffline(false);
      await page.context().close();
    }
  });

  it('the landing page’s plan cards sell the real perks, in Spanish and English', async () => {
    const { page } = await openPhone(app.browser);
    await page.goto(`${app.server.url}/`);
    const pricing = page.locator('#pricing');
    await pricing.getByRole('heading', { name: es['subscribe.plansTitle'] }).waitFor();
    const starter = pricing.getByTestId('plan-starter');
    expect(await starter.textContent()).toContain(es['subscribe.starter.2']);
    // Spain writes the amount, then the currency.
    expect(await starter.textContent()).toContain('10\u00a0US$');
    expect(await starter.textContent()).toContain('120\u00a0US$ facturados al año');
    expect(await pricing.getByTestId('plan-pro').getByRole('button').textContent()).toBe('¡PRÓXIMAMENTE!');
    expect(await pricing.textContent()).not.toMatch(/website|review|analytic|integration|sitio web|reseña|analítica|integraci/i);
    await pricing.scrollIntoViewIfNeeded();
    await keepShot(page, 'paid-13-landing-plans-es');

    await page.evaluate(() => localStorage.setItem('language_code', 'en'));
    await page.reload();
    await pricing.getByRole('heading', { name: en['subscribe.plansTitle'] }).waitFor();
    await pricing.getByRole('radio', { name: en['subscribe.monthly'] }).click();
    expect(await starter.textContent()).toContain(`$15 / ${en['subscribe.perMonth']}`);
    expect(await starter.textContent()).toContain(en['subscribe.starter.1']);
    await starter.getByRole('link', { name: en['landing.getStarted'] }).click();
    await page.waitForURL('**/login/');
  });
});
