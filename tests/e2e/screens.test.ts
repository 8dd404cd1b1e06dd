/**
 * The remaining screens in Chromium (390×844), in English with a switch to Spanish: another user's
 * profile (gallery, wrap-around, dots, like → 600 ms overlay → home), the deck's buttons, keys, tap
 * and empty state, the subscribe flow through the server's local test checkout, privacy and logout.
 */
import { sql } from 'drizzle-orm';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DECK_MATCH_OVERLAY_MS, DECK_PAGE_SIZE, PLAN_MONTHLY_PRICES } from '../../shared/constants';
import { en } from '../../shared/i18n/en';
import { format } from '../../shared/i18n/format';
import { es } from '../../shared/i18n/es';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { imageDataUri } from '../helpers/images';
import { match } from '../realtime/fixtures';
import { deckSettled, entryAnimationsDone, hasChromium, keepMatchOverlay, keepShot, openLaptop, openPhone, PHONE } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

describe.skipIf(!ready)('profile page, deck controls, subscribe, privacy (Chromium, 390×844)', { timeout: 90_000 }, () => {
  const app = appInChromium();
  let page: Page;
  let ana: TestUser;
  let ben: TestUser;
  const shot = (name: string) => keepShot(page, name);
  /** The name a deck card shows (its heading says the age beside it). */
  const nameOnCard = (card: Locator) => card.locator('h2').evaluate((heading) => heading.firstChild?.textContent?.trim() ?? '');
  const dotState = () => page.locator('.dots .dot').evaluateAll((dots) => dots.map((dot) => dot.getAttribute('aria-current')));

  beforeAll(async () => {
    ana = await makeCompletedUser(app.server, { name: 'Ana', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Ana', lastName: 'Ruiz' });
    ben = await makeCompletedUser(
      app.server,
      { name: 'Ben', bio: 'DJ tonight, dancer otherwise.', gender: 'male', genders_to_match: ['female'], image2: await imageDataUri('jpeg'), image3: await imageDataUri('png', { color: '#2563eb' }) },
      { firstName: 'Ben' },
    );
    ({ page } = await openPhone(app.browser, { token: ana.token, language: 'en' }));
  }, 120_000);

  it("shows another user's profile with a wrap-around gallery, and a like that matches shows the overlay, then home", async () => {
    await client(app.server.url).post('/api/matching/', { token: ben.token, json: { response: 'like', other: ana.id } });
    await page.goto(`${app.server.url}/app/profiles/${ben.id}`);
    await page.getByRole('heading', { name: /Ben, 28/ }).waitFor();
    await page.getByText('DJ tonight, dancer otherwise.').waitFor();
    expect(await page.locator('.genre').textContent()).toBe(en['gender.male']);
    expect(await dotState()).toEqual(['true', 'false', 'false']);

    await page.getByRole('button', { name: en['profileView.previous'] }).click();
    expect(await dotState()).toEqual(['false', 'false', 'true']);
    await page.getByRole('button', { name: en['profileView.next'] }).click();
    expect(await dotState()).toEqual(['true', 'false', 'false']);

    // A swipe left on the photo shows the next one.
    const box = await page.getByTestId('gallery').boundingBox();
    if (!box) throw new Error('gallery has no box');
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2);
    await page.mouse.down();
    for (let step = 1; step <= 8; step += 1) await page.mouse.move(box.x + box.width * 0.8 - step * 20, box.y + box.height / 2);
    await page.mouse.up();
    await expect.poll(dotState).toEqual(['false', 'true', 'false']);
    await shot('screens-01-profile-view');
    // Unscrolled, with the e-mail banner above, the name and age show between the photo and the buttons.
    expect(await page.locator('.verify-banner').isVisible()).toBe(true);
    const [heading, actions] = await Promise.all([page.getByRole('heading', { name: /Ben, 28/ }).boundingBox(), page.locator('.deck-actions').boundingBox()]);
    expect(heading && actions && heading.y + heading.height <= actions.y).toBe(true);
    // So on a small phone too (320 × 568): the photo gives up its height first, keeping the column's
    // width (it narrowed to 105 px between wide margins), and its arrows.
    await page.setViewportSize({ width: 320, height: 568 });
    await expect
      .poll(async () => {
        const [small, smallActions] = await Promise.all([page.getByRole('heading', { name: /Ben, 28/ }).boundingBox(), page.locator('.deck-actions').boundingBox()]);
        return Boolean(small && smallActions && small.y + small.height <= smallActions.y);
      })
      .toBe(true);
    expect((await page.getByTestId('gallery').boundingBox())!.width).toBeGreaterThanOrEqual(320 - 2 * 16 - 1);
    await page.getByRole('button', { name: en['profileView.next'] }).click();
    await expect.poll(dotState).toEqual(['false', 'false', 'true']);
    await page.locator('.dots .dot').nth(1).click();
    await expect.poll(dotState).toEqual(['false', 'true', 'false']);
    await shot('screens-01b-profile-view-320x568');
    await page.setViewportSize(PHONE);
    // Scrolled to the end, the bio clears the buttons.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const [bio, actionsAtEnd] = await Promise.all([page.locator('.bio').boundingBox(), page.locator('.deck-actions').boundingBox()]);
    expect(bio && actionsAtEnd && bio.y + bio.height <= actionsAtEnd.y).toBe(true);
    await page.evaluate(() => window.scrollTo(0, 0));

    // The overlay shows for PROFILE_MATCH_OVERLAY_MS only: watched for from before the click, since a
    // busy machine can take longer than that between the click's return and the next command.
    // The match is felt too, where the phone can vibrate: the calls are counted.
    await page.evaluate(() => {
      const buzzes: unknown[] = [];
      Object.assign(window, { buzzes });
      navigator.vibrate = (pattern) => buzzes.push(pattern) > 0;
    });
    const overlay = page.getByRole('heading', { name: en['deck.match.title'] }).waitFor();
    await page.getByRole('button', { name: en['profileView.like'], exact: true }).click();
    await overlay;
    expect(await page.evaluate(() => (window as unknown as { buzzes: unknown[] }).buzzes)).toEqual([[40, 60, 90]]);
    await page.waitForURL('**/app/home/');
    await page.getByRole('heading', { name: en['deck.match.title'] }).waitFor({ state: 'detached' });
    // The keyboard's place went on from the deck's heading, not from <body>.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(en['app.nav.home']);
  });

  it('works the deck with keys, buttons and a tap, down to the empty text', async () => {
    const names = ['Carl', 'Dario', 'Eli'];
    for (const name of names) await makeCompletedUser(app.server, { name, gender: 'male', genders_to_match: ['female'] }, { firstName: name });
    await page.goto(`${app.server.url}/app/home/`);
    const card = page.getByTestId('swipe-card');
    await card.waitFor();
    const currentName = () => nameOnCard(card);
    const first = await currentName();
    expect(names).toContain(first);
    // Arrow keys are told of where there are keys: on a laptop, not on a touch screen.
    await page.getByText(en['deck.hint']).waitFor();
    expect(await page.getByText(en['deck.hintKeys']).isVisible()).toBe(false);
    const { context: laptop, page: desk } = await openLaptop(app.browser, { token: ana.token, language: 'en' });
    try {
      await desk.goto(`${app.server.url}/app/home/`);
      await desk.getByText(en['deck.hintKeys']).waitFor();
    } finally {
      await laptop.close();
    }

    await page.keyboard.press('ArrowLeft');
    await expect.poll(currentName).not.toBe(first);
    const second = await currentName();
    // From the keyboard: the button keeps the focus while its card leaves, so Enter again acts again.
    const skip = page.getByRole('button', { name: en['deck.skip'] });
    await skip.focus();
    await page.keyboard.press('Enter');
    await expect.poll(currentName).not.toBe(second);
    expect(await skip.evaluate((button) => button === document.activeElement)).toBe(true);

    const third = await currentName();
    await card.click();
    await page.waitForURL(/\/app\/profiles\/\d+$/);
    await page.getByRole('heading', { name: new RegExp(third) }).waitFor();
    await page.getByRole('button', { name: en['profileView.reject'] }).click();
    await page.waitForURL('**/app/home/');

    // Only the skipped card is left (skips come back); a dislike empties the deck.
    await expect.poll(currentName).toBe(second);
    await deckSettled(page);
    await page.getByRole('button', { name: en['deck.dislike'] }).click();
    await page.getByText(en['deck.empty']).waitFor();
    await shot('screens-02-deck-empty');
  });

  it('keeps the card on top after a look at its profile, though the server would now put another first', async () => {
    const men = [];
    for (const name of ['Fede', 'Gil', 'Hugo']) men.push(await makeCompletedUser(app.server, { name, gender: 'male', genders_to_match: ['female'] }, { firstName: name }));
    await page.goto(`${app.server.url}/app/home/`);
    const card = page.getByTestId('swipe-card');
    await card.waitFor();
    const top = await nameOnCard(card);
    // One behind it is active this minute: asked now, the server puts him first (most recently active).
    const behind = men.find((man) => man.firstName !== top)!;
    await app.server.app.db.execute(sql`update profiles set last_active_at = now() + interval '1 minute' where user_id = ${behind.id}`);
    await card.click();
    await page.getByRole('heading', { name: new RegExp(top) }).waitFor();
    const deckRead = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/users/matching-profiles/');
    await page.goBack();
    await page.waitForURL('**/app/home/');
    await deckRead;
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    expect(await nameOnCard(card)).toBe(top);

    // Who fits changes with the profile: back on the deck after saving it, the cards are asked anew.
    const setLookingFor = async (gender: 'male' | 'female') => {
      await page.goto(`${app.server.url}/app/profile/`);
      await page.getByRole('checkbox', { name: en[`gender.${gender}`], exact: true }).check();
      await page.getByRole('checkbox', { name: en[`gender.${gender === 'male' ? 'female' : 'male'}`], exact: true }).uncheck();
      const saved = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/users/me/' && response.ok());
      await page.getByRole('button', { name: en['profile.save'] }).click();
      await saved;
      await page.getByRole('link', { name: en['app.nav.home'] }).click();
    };
    await setLookingFor('female');
    await page.getByText(en['deck.empty']).waitFor();
    await setLookingFor('male');
    await card.waitFor();

    // Out of the deck again, an empty one for the tests that follow: by the keys of the card (those of
    // the nav's link, which has the focus after the click, are the link's).
    await card.focus();
    for (let left = men.length; left > 0; left--) {
      const name = await nameOnCard(card);
      await page.keyboard.press('ArrowLeft');
      if (left > 1) await expect.poll(() => nameOnCard(card)).not.toBe(name);
    }
    await page.getByText(en['deck.empty']).waitFor();
  });

  it('leaves keys to what has them: the browser’s Alt+Left, an open menu, the match overlay', async () => {
    // Jo and Kim liked Ivy already: her like is a match, whichever card is first.
    const ivy = await makeCompletedUser(app.server, { name: 'Ivy', gender: 'female', genders_to_match: ['female'] }, { firstName: 'Ivy' });
    for (const name of ['Jo', 'Kim']) {
      const admirer = await makeCompletedUser(app.server, { name, gender: 'female', genders_to_match: ['female'] }, { firstName: name });
      await client(app.server.url).post('/api/matching/', { token: admirer.token, json: { response: 'like', other: ivy.id } });
    }
    const { context, page: phone } = await openPhone(app.browser, { token: ivy.token, language: 'en' });
    try {
      const decisions: string[] = [];
      phone.on('request', (request) => {
        if (request.method() === 'POST' && request.url().endsWith('/api/matching/')) decisions.push((request.postDataJSON() as { response: string }).response);
      });
      await phone.goto(`${app.server.url}/app/home/`);
      const card = phone.getByTestId('swipe-card');
      await card.waitFor();
      const first = await nameOnCard(card);
      await phone.keyboard.press('Alt+ArrowLeft');
      await phone.getByRole('button', { name: new RegExp(en['app.userMenu']) }).click();
      await phone.getByRole('menu').waitFor();
      await phone.keyboard.press('ArrowDown');
      await phone.keyboard.press('ArrowLeft');
      await phone.keyboard.press('Escape');
      await phone.getByRole('menu').waitFor({ state: 'detached' });
      // Back on the menu's button: another control's arrows, not the deck's.
      await phone.keyboard.press('ArrowRight');

      // The first decision the deck sends is this like, from the card: none of the keys above was one.
      await card.focus();
      await phone.keyboard.press('ArrowRight');
      // On the overlay (it shows for 2 s, so this runs in the page the moment it is there), the
      // keyboard is on its "Send a message"; an arrow is not a decision on the card behind it, and
      // Escape closes it.
      const onOverlay = await phone.evaluate(
        () =>
          new Promise<{ focused: string | null | undefined; closedByEscape: boolean }>((resolve) => {
            let shown = false;
            const check = () => {
              const overlay = document.querySelector('.match-overlay');
              // Gone again without the keyboard ever on it.
              if (shown && !overlay) return resolve({ focused: null, closedByEscape: false });
              shown ||= overlay !== null;
              if (!overlay?.contains(document.activeElement)) return void requestAnimationFrame(check);
              const focused = document.activeElement?.textContent;
              document.activeElement!.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
              document.activeElement!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
              requestAnimationFrame(() => resolve({ focused, closedByEscape: !document.querySelector('.match-overlay') }));
            };
            check();
          }),
      );
      expect(onOverlay).toEqual({ focused: en['deck.match.chat'], closedByEscape: true });
      expect(decisions).toEqual(['like']);
      // The next card's keys are the deck's again.
      await expect.poll(() => nameOnCard(card)).not.toBe(first);
      await phone.keyboard.press('ArrowLeft');
      await expect.poll(() => decisions).toEqual(['like', 'dislike']);
    } finally {
      await context.close();
    }
  });

  it('keeps the match overlay for the keyboard that made the match until it leaves; a tap’s goes in 2 s', async () => {
    // Max, Noe and Oto liked Leo already: each of his likes is a match, and a card stays after two.
    const leo = await makeCompletedUser(app.server, { name: 'Leo', gender: 'male', genders_to_match: ['male'] }, { firstName: 'Leo' });
    for (const name of ['Max', 'Noe', 'Oto']) {
      const admirer = await makeCompletedUser(app.server, { name, gender: 'male', genders_to_match: ['male'] }, { firstName: name });
      await client(app.server.url).post('/api/matching/', { token: admirer.token, json: { response: 'like', other: leo.id } });
    }
    const { context, page: phone } = await openPhone(app.browser, { token: leo.token, language: 'en' });
    try {
      // The page's clock runs as a real one does, and the test moves it on past the overlay's time
      // instead of waiting that time out.
      await phone.clock.install();
      await phone.goto(`${app.server.url}/app/home/`);
      const overlay = phone.getByRole('alertdialog', { name: en['deck.match.title'] });
      const like = phone.getByRole('button', { name: en['deck.like'], exact: true });
      const focusedOnOverlay = () => phone.waitForFunction(() => document.querySelector('.match-overlay')?.contains(document.activeElement));
      // A tap: a glance's 2 s, its focus on the overlay all the while.
      await deckSettled(phone);
      await like.tap();
      await overlay.waitFor();
      await focusedOnOverlay();
      await phone.clock.runFor(DECK_MATCH_OVERLAY_MS);
      await overlay.waitFor({ state: 'detached', timeout: 2000 });

      // From the keyboard: held while its focus is there, and closed by Escape.
      await phone.getByTestId('swipe-card').waitFor();
      await like.focus();
      await phone.keyboard.press('Enter');
      await overlay.waitFor();
      // The overlay's own effect puts the focus there and holds it, at once: from then on it stays.
      await focusedOnOverlay();
      await phone.clock.runFor(DECK_MATCH_OVERLAY_MS + 1000);
      expect(await overlay.isVisible()).toBe(true);
      await phone.keyboard.press('Escape');
      await overlay.waitFor({ state: 'detached' });
      // The keyboard's place back where it was.
      expect(await phone.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(en['deck.like']);
    } finally {
      await context.close();
    }
  });

  it('brings a card back on top when its decision does not reach the server, and on a profile stays there', async () => {
    // Each the only one the other's deck shows.
    const fran = await makeCompletedUser(app.server, { name: 'Fran', gender: 'non_binary', genders_to_match: ['non_binary'] }, { firstName: 'Fran' });
    for (const name of ['Gus', 'Hal']) {
      await makeCompletedUser(app.server, { name, gender: 'non_binary', genders_to_match: ['non_binary'] }, { firstName: name });
    }
    const { context, page: phone } = await openPhone(app.browser, { token: fran.token, language: 'en' });
    try {
      const sent: Array<[response: string, retry: boolean]> = [];
      // The party's Wi-Fi drops each decision twice, the app's own resend too; the next one goes through.
      await phone.route('**/api/matching/', async (route) => {
        if (route.request().method() !== 'POST') return route.continue();
        const { response, retry } = route.request().postDataJSON() as { response: string; retry?: boolean };
        const dropped = sent.filter(([earlier]) => earlier === response).length < 2;
        sent.push([response, retry ?? false]);
        return dropped ? route.abort('internetdisconnected') : route.continue();
      });
      await phone.goto(`${app.server.url}/app/home/`);
      const card = phone.getByTestId('swipe-card');
      await card.waitFor();
      const first = await nameOnCard(card);
      const second = first === 'Gus' ? 'Hal' : 'Gus';
      await deckSettled(phone);
      await phone.getByRole('button', { name: en['deck.like'], exact: true }).click();
      await phone.getByText(format(en['deck.notSent'], { name: first })).waitFor();
      // Back in the middle of the deck, upright, to be decided again.
      const centreOffset = async () => {
        const box = await card.boundingBox();
        return box ? Math.round(box.x + box.width / 2 - PHONE.width / 2) : null;
      };
      await expect.poll(centreOffset).toBe(0);
      expect(await nameOnCard(card)).toBe(first);
      await keepShot(phone, 'screens-02b-deck-not-sent');

      // On the profile, a dislike that does not go through leaves the profile up to try again.
      await card.click();
      await phone.waitForURL(/\/app\/profiles\/\d+$/);
      await phone.getByRole('button', { name: en['profileView.reject'] }).click();
      await phone.getByText(en['profileView.notSent']).waitFor();
      expect(phone.url()).toMatch(/\/app\/profiles\/\d+$/);
      await phone.getByRole('button', { name: en['profileView.reject'] }).click();
      await phone.waitForURL('**/app/home/');
      await expect.poll(() => nameOnCard(card)).toBe(second);
      // Each decision resent once by itself, then the dislike once more by hand.
      expect(sent).toEqual([
        ['like', false],
        ['like', true],
        ['dislike', false],
        ['dislike', true],
        ['dislike', false],
      ]);
    } finally {
      await context.close();
    }
  });

  it('offers to try again when the deck or a profile could not be loaded, though the socket stayed up', async () => {
    const ivo = await makeCompletedUser(app.server, { name: 'Ivo', gender: 'non_binary', genders_to_match: ['female'] }, { firstName: 'Ivo' });
    const jo = await makeCompletedUser(app.server, { name: 'Jo', gender: 'female', genders_to_match: ['non_binary'] }, { firstName: 'Jo' });
    const { context, page: phone } = await openPhone(app.browser, { token: ivo.token, language: 'en' });
    try {
      // The server fails each of these once.
      const failedOnce = new Set<string>();
      const failOnce = (name: string) => (route: import('playwright-core').Route) =>
        failedOnce.has(name) ? route.continue() : (failedOnce.add(name), route.fulfill({ status: 500, json: { detail: 'A server error occurred.' } }));
      await phone.route('**/api/users/matching-profiles/**', failOnce('deck'));
      await phone.route(`**/api/users/${jo.id}/profile/`, failOnce('profile'));

      await phone.goto(`${app.server.url}/app/home/`);
      await phone.getByText(en['deck.failed']).waitFor();
      await keepShot(phone, 'screens-02c-deck-failed');
      await phone.getByRole('button', { name: en['app.retry'] }).click();
      const card = phone.getByTestId('swipe-card');
      await expect.poll(() => nameOnCard(card)).toBe('Jo');

      await card.click();
      // The server's error, with the phone online: not "No connection".
      await phone.getByText(en['error.generic']).waitFor();
      expect(await phone.getByText(en['profileView.offline']).count()).toBe(0);
      await phone.getByRole('button', { name: en['app.retry'] }).click();
      await phone.getByRole('heading', { name: /Jo, 28/ }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('looks again from an empty deck when the app comes back to the front, and fetches the next cards before the deck runs dry', async () => {
    const card = page.getByTestId('swipe-card');
    const currentName = () => nameOnCard(card);
    await page.getByText(en['deck.empty']).waitFor();
    // Someone arrives while the deck is empty; the phone comes back to the front.
    await makeCompletedUser(app.server, { name: 'Gus', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Gus' });
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await expect.poll(currentName).toBe('Gus');
    await page.keyboard.press('ArrowLeft');
    await page.getByText(en['deck.empty']).waitFor();

    // More people than a page: the deck goes through all of them without showing the empty text.
    const arrivals = Array.from({ length: DECK_PAGE_SIZE + 4 }, (_, i) => `Guest ${i + 1}`);
    for (const name of arrivals) await makeCompletedUser(app.server, { name, gender: 'male', genders_to_match: ['female'] }, { firstName: name });
    await page.goto(`${app.server.url}/app/home/`);
    await card.waitFor();
    await page.evaluate(() => {
      const flags = window as unknown as { emptyShown: boolean };
      flags.emptyShown = false;
      new MutationObserver(() => {
        if (document.querySelector('.deck-empty')) flags.emptyShown = true;
      }).observe(document.body, { childList: true, subtree: true });
    });
    const seen: string[] = [];
    for (const _ of arrivals) {
      const name = await currentName();
      seen.push(name);
      await page.keyboard.press('ArrowLeft');
      if (seen.length < arrivals.length) await expect.poll(currentName).not.toBe(name);
    }
    expect(await page.evaluate(() => (window as unknown as { emptyShown: boolean }).emptyShown)).toBe(false);
    expect([...seen].sort()).toEqual([...arrivals].sort());
    await page.getByText(en['deck.empty']).waitFor();
  });

  it('shows the match overlay when the other person likes last (match:new over the socket)', async () => {
    const finn = await makeCompletedUser(app.server, { name: 'Finn', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Finn' });
    // More new matches than the strip shows at once, so that it scrolls sideways.
    for (let i = 1; i <= 6; i++) {
      const earlier = await makeCompletedUser(app.server, { name: `Guest ${i}`, gender: 'male', genders_to_match: ['female'] });
      await match(app.server, earlier, ana);
    }
    await page.goto(`${app.server.url}/app/matches/`);
    await page.getByRole('heading', { name: en['matches.matchesTitle'] }).waitFor();
    await expect.poll(() => page.evaluate(() => document.querySelector('.offline-banner') === null)).toBe(true);
    const strip = page.locator('.match-strip');
    await strip.getByRole('link', { name: /Guest 6/ }).waitFor();
    expect(await strip.evaluate((list) => list.scrollWidth > list.clientWidth)).toBe(true);
    /** The strip's scroll, and whether the chip's whole box is inside the strip's visible box. */
    const chipInSight = (name: RegExp) =>
      strip.getByRole('link', { name }).evaluate((chip) => {
        const list = chip.closest('.match-strip')!;
        const [box, seen] = [chip.getBoundingClientRect(), list.getBoundingClientRect()];
        return { scrollLeft: list.scrollLeft, inSight: box.left >= seen.left && box.right <= seen.right };
      });
    // It starts at its start: the newest match whole, at the left edge.
    expect(await chipInSight(/Guest 6/)).toEqual({ scrollLeft: 0, inSight: true });
    // Held past its 2 s, so that its picture shows it at rest rather than half-way in.
    await keepMatchOverlay(page);
    const api = client(app.server.url);
    expect((await api.post('/api/matching/', { token: ana.token, json: { response: 'like', other: finn.id } })).body.match).toBe(false);
    // Finn completes the pair from his phone: Ana's open tab hears it and shows the overlay.
    expect((await api.post('/api/matching/', { token: finn.token, json: { response: 'like', other: ana.id } })).body.match).toBe(true);
    await page.getByRole('alertdialog', { name: en['deck.match.title'] }).getByText('You and Finn can chat now.').waitFor();
    await entryAnimationsDone(page);
    await shot('screens-02b-socket-match');
    // And the new match joins the strip of the open matches page, first and in sight.
    await strip.getByRole('link', { name: /Finn/ }).waitFor();
    await expect.poll(() => chipInSight(/Finn/)).toEqual({ scrollLeft: 0, inSight: true });
    await page.keyboard.press('Escape');
    await page.getByRole('heading', { name: en['deck.match.title'] }).waitFor({ state: 'detached' });
  });

  it('shows the Google button only when the server has a client id, and a visible error when Google fails', async () => {
    await page.evaluate(() => localStorage.removeItem('auth_token'));
    await page.goto(`${app.server.url}/login/`);
    await page.getByRole('heading', { name: en['login.title'] }).waitFor();
    expect(await page.getByRole('button', { name: en['login.google'] }).count()).toBe(0);

    app.server.app.config.google.clientId = 'test-client.apps.googleusercontent.com';
    try {
      // Google unreachable (this machine has no internet, and the test must not depend on it anyway).
      await page.route('https://accounts.google.com/**', (route) => route.abort());
      await page.goto(`${app.server.url}/register`);
      await page.getByRole('button', { name: en['register.google'] }).click();
      await page.getByRole('alert').filter({ hasText: en['auth.googleFailed'] }).waitFor();
      await shot('screens-02c-google-failed');
    } finally {
      app.server.app.config.google.clientId = null;
      await page.unroute('https://accounts.google.com/**');
      await page.evaluate((token) => localStorage.setItem('auth_token', token), ana.token);
    }
  });

  it('subscribes to Starter through the local test checkout and shows the success screen', async () => {
    await page.goto(`${app.server.url}/app/subscribe/`);
    const starter = page.getByTestId('plan-starter');
    await starter.waitFor();
    expect(await starter.textContent()).toContain(`$10 / ${en['subscribe.perMonthAnnually']}`);
    // What the year charges, under the per-month figure.
    expect(await starter.textContent()).toContain('$120 billed yearly');
    expect(await page.getByTestId('plan-pro').getByRole('button').isDisabled()).toBe(true);
    await shot('screens-03-subscribe');

    await page.getByRole('button', { name: 'Español' }).first().click();
    await page.getByRole('heading', { name: es['subscribe.title'] }).waitFor();
    await shot('screens-04-subscribe-es');
    await page.getByRole('button', { name: 'English' }).first().click();

    await page.getByRole('radio', { name: en['subscribe.monthly'] }).click();
    expect(await starter.textContent()).toContain(`$15 / ${en['subscribe.perMonth']}`);
    expect(await page.getByText(en['subscribe.testMode']).isVisible()).toBe(true);
    await starter.getByRole('button', { name: en['subscribe.choose'] }).click();

    // The labelled test checkout: Ana's own session, shown to her signed-in session only.
    await page.waitForURL(/\/app\/subscribe\/test-checkout\/cs_local_[\w-]+$/);
    await page.getByRole('heading', { name: en['checkout.title'] }).waitFor();
    expect(await page.getByText(en['checkout.banner']).isVisible()).toBe(true);
    expect(await page.locator('.test-checkout-details').textContent()).toContain(ana.email);
    // What it costs, as the plan's card said.
    expect(await page.locator('.test-checkout-details').textContent()).toContain(`$${PLAN_MONTHLY_PRICES.starter} / ${en['subscribe.perMonth']}`);
    // And what is charged when: the month's price at the free trial's end, then every month.
    await page
      .locator('.test-checkout-details dd')
      .getByText(/^\$15 on \w{3} \d{1,2}, \d{4}, then every month, unless you cancel$/)
      .waitFor();
    // Nothing wider than the phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    // On a phone each detail goes under its label, across the page: beside "Billing period" the
    // account's address broke letter by letter in a narrow column at 320 px.
    await page.setViewportSize({ width: 320, height: PHONE.height });
    const details = (await page.locator('.test-checkout-details').boundingBox())!;
    const account = (await page.locator('.test-checkout-details dd', { hasText: ana.email }).boundingBox())!;
    expect(account.width).toBeGreaterThan(details.width * 0.9);
    await shot('screens-05a-test-checkout-at-320');
    await page.setViewportSize(PHONE);
    await shot('screens-05-test-checkout');
    await page.getByRole('button', { name: en['checkout.complete.button'] }).click();
    await page.waitForURL(/\/app\/subscribe\/\?success=true&session_id=/);
    await page.getByRole('heading', { name: en['subscribe.success.title'] }).waitFor();
    await shot('screens-06-subscribe-success');

    const me = await client(app.server.url).get('/api/users/me/', { token: ana.token });
    expect(me.body.has_subscription).toBe(true);
    await page.getByRole('link', { name: en['subscribe.success.link'] }).click();
    await page.waitForURL('**/app/home/');

    await page.goto(`${app.server.url}/app/subscribe/?canceled=true`);
    await page.getByRole('heading', { name: en['subscribe.error.title'] }).waitFor();
    await page.getByRole('link', { name: en['subscribe.retry'] }).click();
    // Already subscribed: the page shows the plan instead of the plan list.
    await page.waitForURL('**/app/subscribe/');
    await page.getByRole('heading', { name: en['subscribe.current.title'], exact: true }).waitFor();
    await page.getByRole('button', { name: en['subscribe.manage'] }).waitFor();
  });

  it('asks before a link leaves the profile with changes not saved, and not once they are', async () => {
    await page.goto(`${app.server.url}/app/profile/`);
    const bio = page.getByRole('textbox', { name: en['profile.bio'] });
    await bio.waitFor();
    const before = await bio.inputValue();
    await bio.fill('Changed my mind about the bio');
    const home = page.getByRole('link', { name: en['app.nav.home'] });
    const discard = page.getByRole('dialog', { name: en['profile.discardTitle'] });

    await home.click();
    await discard.waitFor();
    await entryAnimationsDone(page);
    await shot('screens-06b-discard-changes');
    // Keep editing: still here, the change still in the field.
    await discard.getByRole('button', { name: en['profile.keepEditing'] }).click();
    await discard.waitFor({ state: 'detached' });
    expect(page.url()).toMatch(/\/app\/profile\/$/);
    expect(await bio.inputValue()).toBe('Changed my mind about the bio');
    // The profile tab is this very page: nothing to ask.
    await page.getByRole('link', { name: en['app.nav.profile'] }).click();
    expect(await discard.count()).toBe(0);
    expect(await bio.inputValue()).toBe('Changed my mind about the bio');

    await home.click();
    await discard.getByRole('button', { name: en['profile.discard'] }).click();
    await page.waitForURL(/\/app\/home\/?$/);
    await page.goto(`${app.server.url}/app/profile/`);
    await bio.waitFor();
    expect(await bio.inputValue()).toBe(before);

    // Saved, nothing to ask.
    await bio.fill('Saved this time');
    await page.getByRole('button', { name: en['profile.save'] }).click();
    await page.getByText(en['profile.saved']).first().waitFor();
    await home.click();
    await page.waitForURL(/\/app\/home\/?$/);
    expect(await discard.count()).toBe(0);
  });

  it('shows the privacy policy with its contents, and logs out from the top bar', async () => {
    await page.goto(`${app.server.url}/privacy`);
    await page.getByRole('heading', { name: en['privacy.title'] }).waitFor();
    for (const id of ['collection', 'sharing', 'security', 'rights', 'changes', 'contact'] as const) {
      await page.getByRole('link', { name: en[`privacy.${id}.title`] }).waitFor();
    }
    await page.getByRole('link', { name: 'privacy@eventmatch.app' }).waitFor();
    await shot('screens-07-privacy');
    // On a 320 px phone the language switch beside the logo says ES / EN, inside the screen.
    await page.setViewportSize({ width: 320, height: 568 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    expect((await page.locator('.auth-header .lang-switch').innerText()).replace(/\s/g, '')).toBe('ESEN');
    await page.getByRole('button', { name: 'Español' }).waitFor();
    await page.setViewportSize(PHONE);

    await page.goto(`${app.server.url}/app/home/`);
    // The question covers the whole screen, the bottom navigation too: Stay is a tap away, and stays.
    await page.getByRole('link', { name: en['app.logout'] }).click();
    await page.getByRole('dialog', { name: en['app.logoutAsk.title'] }).getByRole('button', { name: en['app.logoutUnsent.stay'] }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe('/app/home/');
    await page.getByRole('link', { name: en['app.logout'] }).click();
    await page.getByRole('dialog', { name: en['app.logoutAsk.title'] }).getByRole('button', { name: en['app.logoutAsk.confirm'] }).click();
    await page.waitForURL(`${app.server.url}/`);
    expect(await page.evaluate(() => localStorage.getItem('auth_token'))).toBeNull();
    expect(await page.evaluate(() => localStorage.getItem('language_code'))).toBe('en');
    const revoked = await client(app.server.url).get('/api/users/me/', { token: ana.token });
    expect(revoked.status).toBe(401);
  });

  it('signs a tab out when its token is revoked elsewhere, even while it only listens on the socket', async () => {
    const cleo = await makeCompletedUser(app.server, { name: 'Cleo' }, { firstName: 'Cleo' });
    const tab = await openPhone(app.browser, { token: cleo.token, language: 'en' });
    try {
      await tab.page.goto(`${app.server.url}/app/matches/`);
      await tab.page.getByRole('heading', { name: en['matches.matchesTitle'] }).waitFor();
      // Logged out on another device: the server revokes the token and drops the sockets that used it.
      expect((await client(app.server.url).post('/api/auth/logout/', { token: cleo.token })).status).toBe(204);
      // The app leaves for /login/ twice (its router, then a fresh page load that drops the old state):
      // wait for the URL, then for the login page itself, not for a 'load' event one of them may skip.
      await tab.page.waitForURL(`${app.server.url}/login/?ended`, { waitUntil: 'commit' });
      await tab.page.getByRole('heading', { name: en['login.title'] }).waitFor();
      // It says why: the session was closed from elsewhere (or expired), not a crash.
      await tab.page.getByRole('status').getByText(en['login.ended']).waitFor();
      expect(await tab.page.evaluate(() => localStorage.getItem('auth_token'))).toBeNull();
    } finally {
      await tab.context.close();
    }
  });

  it('keeps a message still on its way when a session closes elsewhere, and sends it once the user logs in again', async () => {
    const [dana, eli] = await Promise.all([makeCompletedUser(app.server, { name: 'Dana' }), makeCompletedUser(app.server, { name: 'Eli' })]);
    const conversationId = await match(app.server, dana, eli);
    const tab = await openPhone(app.browser, { token: dana.token, language: 'en' });
    try {
      await tab.page.goto(`${app.server.url}/app/chat/${conversationId}/`);
      await tab.page.getByRole('textbox').waitFor();
      await tab.context.setOffline(true);
      await tab.page.getByText(en['app.noNetwork'], { exact: true }).waitFor();
      await tab.page.getByPlaceholder(en['chat.placeholder']).fill('Written in the tunnel');
      await tab.page.getByRole('button', { name: en['chat.send'], exact: true }).tap();
      await tab.page.locator('.message-own', { hasText: 'Written in the tunnel' }).getByText(en['chat.queued']).waitFor();
      // "Log out everywhere" on another phone, while this one has no network; then it comes back.
      expect((await client(app.server.url).post('/api/auth/logout/', { token: dana.token })).status).toBe(204);
      await tab.context.setOffline(false);
      await tab.page.waitForURL(`${app.server.url}/login/?ended&unsent`, { waitUntil: 'commit' });
      await tab.page.getByRole('heading', { name: en['login.title'] }).waitFor();
      expect(await tab.page.getByRole('status').textContent()).toBe(`${en['login.ended']} ${en['login.unsent']}`);
      // It never reached the server; the same user logging in again on this phone sends it, once.
      const stored = async () =>
        ((await client(app.server.url).get(`/api/conversations/${conversationId}/messages/`, { token: eli.token })).body.results as Array<{ content: string; sender: number }>)
          .filter((message) => message.content === 'Written in the tunnel')
          .map((message) => message.sender);
      expect(await stored()).toEqual([]);
      await tab.page.getByLabel(en['auth.email']).fill(dana.email);
      await tab.page.getByLabel(en['auth.password']).fill(dana.password);
      await tab.page.getByRole('button', { name: en['login.submit'] }).click();
      await tab.page.waitForURL(`${app.server.url}/app/home/`);
      await expect.poll(stored, { timeout: 10_000 }).toEqual([dana.id]);
      await tab.page.goto(`${app.server.url}/app/chat/${conversationId}/`);
      await tab.page.locator('.message-own', { hasText: 'Written in the tunnel' }).waitFor();
      expect(await tab.page.locator('.message-own', { hasText: 'Written in the tunnel' }).count()).toBe(1);
      expect(await stored()).toEqual([dana.id]);
    } finally {
      await tab.context.close();
    }
  });
});
