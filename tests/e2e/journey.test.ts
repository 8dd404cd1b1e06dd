/**
 * The whole product in Debian's Chromium on a phone-sized screen, against the real server:
 * register → login → complete the profile (photo upload and date picker) → deck → like by dragging →
 * match overlay → chat, with the other person's message and typing arriving live over the socket.
 * Screenshots of each screen land in tests/e2e/artifacts/.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { makeCompletedUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { imageBytes } from '../helpers/images';
import { connect } from '../helpers/socket';
import { aboveTheNav, entryAnimationsDone, hasChromium, keepMatchOverlay, keepShot, openPhone, PHONE } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

describe.skipIf(!ready)('the web client end to end (Chromium, 390×844)', { timeout: 90_000 }, () => {
  let page: Page;
  const shot = (name: string) => keepShot(page, name);
  // An address of the usual length, as the banner must show it whole (a fresh database per suite).
  const email = 'lucia.garcia@example.com';
  const password = 'Dance-Floor-2026!';
  const app = appInChromium();

  beforeAll(async () => {
    ({ page } = await openPhone(app.browser));
    page.on('pageerror', (error) => console.error('page error:', error));
  });

  it('shows the landing page in Spanish by default and switches to English, kept in localStorage', async () => {
    await page.goto(`${app.server.url}/`);
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('es');
    await page.getByRole('heading', { level: 1, name: es['landing.hero.title'] }).waitFor();
    await shot('01-landing-es');

    await page.getByRole('button', { name: es['nav.openMenu'] }).click();
    await page.locator('#side-menu').getByRole('button', { name: 'English' }).click();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('en');
    expect(await page.evaluate(() => localStorage.getItem('language_code'))).toBe('en');
    await shot('02-landing-menu-en');
    await page.getByRole('button', { name: en['nav.closeMenu'] }).click();

    await page.reload();
    await page.getByRole('heading', { level: 1, name: en['landing.hero.title'] }).waitFor();
    await page.getByRole('button', { name: en['nav.openMenu'] }).click();
    await page.locator('#side-menu').getByRole('button', { name: 'Español' }).click();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('es');
    await page.getByRole('button', { name: es['nav.closeMenu'] }).click();
  });

  it('registers, is told so in a toast, and logs in to the profile page (profile incomplete)', async () => {
    await page.getByRole('link', { name: es['landing.getStarted'] }).first().click();
    await page.waitForURL('**/login/');
    await page.getByRole('link', { name: es['login.registerLink'] }).click();
    await page.waitForURL('**/register');

    await page.getByLabel(es['register.firstName']).fill('Lucía');
    await page.getByLabel(es['register.lastName']).fill('García');
    await page.getByLabel(es['auth.email']).fill(email);
    await page.getByLabel(es['auth.password'], { exact: true }).fill(password);
    await page.getByLabel(es['register.password2']).fill('not the same');
    await page.getByRole('button', { name: es['register.submit'] }).click();
    // The server's field error, in the reader's language.
    await page.getByText('Las dos contraseñas no coinciden.').waitFor();
    // The field it is about has the focus: a keyboard or a screen reader starts there, not at the top.
    await expect.poll(() => page.getByLabel(es['register.password2']).evaluate((input) => input === document.activeElement)).toBe(true);
    await shot('03-register-error');

    await page.getByLabel(es['register.password2']).fill(password);
    await page.getByRole('button', { name: es['register.submit'] }).click();
    await page.getByText(es['register.success']).waitFor();
    await page.waitForURL('**/login/');
    await shot('04-login-after-register');
    // The e-mail just typed is there, and the password field has the focus.
    expect(await page.getByLabel(es['auth.email']).inputValue()).toBe(email);
    expect(await page.getByLabel(es['auth.password']).evaluate((input) => input === document.activeElement)).toBe(true);

    await page.getByLabel(es['auth.password']).fill('wrong password');
    await page.getByRole('button', { name: es['login.submit'] }).click();
    await page.getByText('No se puede iniciar sesión con esas credenciales.').waitFor();

    await page.getByLabel(es['auth.password']).fill(password);
    await page.getByRole('button', { name: es['login.submit'] }).click();
    // /app/home/ first, then the gate sends an incomplete profile to /app/profile/.
    await page.waitForURL('**/app/profile/');
    expect(await page.evaluate(() => localStorage.getItem('auth_token'))).toBeTruthy();
    await page.getByRole('heading', { name: es['profile.title'] }).waitFor();
    // "You may now log in" is done with once in: it does not stay over the profile.
    // (Gone as the app opens, before the profile is shown: not the 5 s of its countdown.)
    expect(await page.getByText(es['register.success']).count()).toBe(0);
    await shot('05-profile-incomplete');
  });

  it('refuses to save without a photo, then completes the profile with an upload and the date picker', async () => {
    await page.getByLabel(es['profile.bio']).fill('Aquí por la música y la buena gente.');
    await page.getByRole('button', { name: es['profile.save'] }).click();
    // In a toast, and under the photos.
    await page.getByText(es['profile.needPhoto']).first().waitFor();
    expect(await page.getByText(es['profile.needPhoto']).count()).toBe(2);

    await page.getByTestId('photo-input').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: await imageBytes('png', { width: 600, height: 800, color: '#f97316' }) });
    await page.getByTestId('photo-grid').locator('img[src^="/media/"]').waitFor();
    // The photo is there: the toast that asked for it goes.
    await expect.poll(() => page.getByText(es['profile.needPhoto']).count()).toBe(0);

    await page.getByRole('button', { name: es['profile.save'] }).click();
    await page.getByText(es['profile.needDate']).first().waitFor();

    const dateButton = page.getByLabel(es['profile.dateOfBirth']);
    // The field says why it is refused, to a screen reader too (and, as always, that one must be 18).
    expect(await dateButton.getAttribute('aria-describedby')).toBe('dob-error date_of_birth-hint');
    expect(await page.locator('#dob-error').textContent()).toBe(es['profile.needDate']);
    expect(await dateButton.textContent()).toContain(es['profile.pickDate']);
    await dateButton.click();
    // Opens on the year: nothing chosen yet. Months are 0-based (5 is June).
    const years = page.getByLabel(es['profile.year'], { exact: true });
    await expect.poll(() => years.evaluate((element) => element === document.activeElement)).toBe(true);
    await years.selectOption('1996');
    const months = page.getByLabel(es['profile.month'], { exact: true });
    // The longest month's name shows whole, on a 320 px phone too ("Novier" once).
    const monthShowsWhole = () =>
      months.evaluate((select: HTMLSelectElement) => {
        const style = getComputedStyle(select);
        const context = document.createElement('canvas').getContext('2d')!;
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const text = context.measureText(select.options[select.selectedIndex]!.text).width;
        // Beside the text: the padding, the border and the drop-down arrow (about 20 px).
        const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
        return text <= room;
      });
    await months.selectOption('8');
    for (const width of [320, PHONE.width]) {
      await page.setViewportSize({ width, height: PHONE.height });
      expect(await monthShowsWhole(), `septiembre at ${width} px`).toBe(true);
      if (width === 320) await shot('06a-date-picker-at-320');
    }
    await months.selectOption('5');
    await shot('06-date-picker');
    await page.getByRole('grid').getByRole('button', { name: /15 de junio de 1996/ }).click();
    await expect.poll(() => dateButton.textContent()).toContain('15 de junio de 1996');
    // A date picked, the refusal of none goes (it stayed, red, until the next save).
    await page.locator('#dob-error').getByText(es['profile.needDate']).waitFor({ state: 'detached' });
    expect(await dateButton.getAttribute('aria-invalid')).not.toBe('true');

    // By keyboard: reopened, the chosen day has the focus; three weeks down crosses into July.
    await dateButton.click();
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    await expect.poll(focused).toMatch(/15 de junio de 1996/);
    for (let week = 0; week < 3; week += 1) await page.keyboard.press('ArrowDown');
    await expect.poll(focused).toMatch(/6 de julio de 1996/);
    expect(await page.getByLabel(es['profile.month'], { exact: true }).inputValue()).toBe('6');
    await page.keyboard.press('Enter');
    await expect.poll(() => dateButton.textContent()).toContain('6 de julio de 1996');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('date_of_birth');

    await page.getByLabel(es['profile.gender']).selectOption('female');
    await page.getByRole('checkbox', { name: es['gender.male'] }).check();
    await page.getByRole('button', { name: es['profile.save'] }).click();
    await page.getByText(es['profile.saved']).waitFor();
    // Completed for the first time: on to the deck, with the form not left behind it in the history.
    await page.waitForURL('**/app/home/');
    await page.getByTestId('swipe-card').or(page.locator('.deck-empty')).first().waitFor();
    await shot('07-deck-after-first-save');
    await page.getByRole('link', { name: es['app.nav.profile'] }).click();
    await page.waitForURL(/\/app\/profile\/?$/);
    await expect.poll(() => page.getByLabel(es['profile.bio']).inputValue()).not.toBe('');

    // The profile as the server keeps it, read with the page's own session.
    const savedProfile = () =>
      page.evaluate(async () => {
        const response = await fetch('/api/users/me/profile/', { headers: { Authorization: `Token ${localStorage.getItem('auth_token')}` } });
        return response.json();
      });
    const me = await savedProfile();
    expect(me).toMatchObject({ gender: 'female', date_of_birth: '1996-07-06', genders_to_match: ['male'], bio: 'Aquí por la música y la buena gente.' });

    // A second photo, made the primary one with its star: saved first, the first one second.
    await page.getByTestId('photo-input').setInputFiles({ name: 'me-2.png', mimeType: 'image/png', buffer: await imageBytes('png', { width: 600, height: 800, color: '#2563eb' }) });
    await expect.poll(() => page.getByTestId('photo-grid').locator('img[src^="/media/"]').count()).toBe(2);
    // A tile shows the photo's thumbnail (`?size=thumb`); the profile keeps the photo's own address.
    const secondTile = await page.getByTestId('photo-grid').locator('img[src^="/media/"]').nth(1).getAttribute('src');
    expect(secondTile).toMatch(/^\/media\/[\w-]+\.webp\?size=thumb$/);
    const second = secondTile!.replace('?size=thumb', '');
    await page.getByRole('button', { name: es['profile.makePrimary'].replace('{n}', '2') }).click();
    expect(await page.getByTestId('photo-grid').locator('img').first().getAttribute('src')).toBe(secondTile);
    await page.getByRole('button', { name: es['profile.save'] }).click();
    // The first save's toast may still be up: wait for what the server keeps, not for a toast.
    await expect.poll(async () => {
      const saved = await savedProfile();
      return [saved.image, saved.image2];
    }).toEqual([second, me.image]);
  });

  it('drags a card right, shows the match overlay, and chats live with the other person', async () => {
    const api = client(app.server.url);
    const login = await api.post('/api/auth/', { json: { username: email, password } });
    const me = await api.get('/api/users/me/', { token: login.body.token });
    expect(me.body.is_profile_completed).toBe(true);

    // Marco likes Lucía first, so her like completes the match.
    const marco = await makeCompletedUser(app.server, { name: 'Marco', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Marco' });
    const liked = await api.post('/api/matching/', { token: marco.token, json: { response: 'like', other: me.body.id } });
    expect(liked.status).toBe(200);

    await page.getByRole('link', { name: es['app.nav.home'] }).click();
    await page.waitForURL('**/app/home');
    const card = page.getByTestId('swipe-card');
    await card.waitFor();
    await expect.poll(() => card.locator('h2').textContent()).toContain('Marco');
    await shot('08-deck');
    // Not yet verified: the banner above takes its room from the card, never the buttons.
    const banner = page.locator('.verify-banner');
    await banner.waitFor();
    expect(await aboveTheNav(page, '.deck-actions')).toBe(true);
    // The whole sentence is there, the address in one piece that ends inside the banner and is not cut:
    // on this phone (390 px) and the narrowest (320 px), Spanish being the longer.
    expect(await banner.locator('.verify-banner-detail').textContent()).toBe(es['app.verifyBanner'].replace('{email}', email));
    // Nothing in the sentence is cut (an ellipsis shows where scrollWidth > clientWidth), and all its
    // text is drawn inside the banner.
    const addressWhole = () =>
      banner.evaluate((element) => {
        const detail = element.querySelector('.verify-banner-detail')!;
        const box = element.getBoundingClientRect();
        const text = document.createRange();
        text.selectNodeContents(detail);
        const inside = [...text.getClientRects()].every((line) => line.left >= box.left && line.right <= box.right);
        return inside && ![detail, ...detail.querySelectorAll('*')].some((part) => part.scrollWidth > part.clientWidth);
      });
    expect(await addressWhole()).toBe(true);
    // Three lines at most: the title with its buttons, the sentence, and the address on a line of its own.
    expect((await banner.boundingBox())?.height).toBeLessThanOrEqual(90);
    await page.setViewportSize({ width: 320, height: 640 });
    await expect.poll(addressWhole).toBe(true);
    expect((await banner.boundingBox())?.height).toBeLessThanOrEqual(90);
    await shot('08a-banner-at-320');
    // The same phone in Safari shows about 390 × 664 between its bars: the card stays a portrait more
    // than a strip (it was a 355 × 230 strip under the banner and the event bar), the buttons whole.
    await page.setViewportSize({ width: 390, height: 664 });
    await expect.poll(async () => aboveTheNav(page, '.deck-actions')).toBe(true);
    const short = await card.boundingBox();
    if (!short) throw new Error('card has no box');
    expect(short.height / short.width).toBeGreaterThanOrEqual(0.8);
    await shot('08b-deck-between-browser-bars');
    await page.setViewportSize(PHONE);

    const box = await card.boundingBox();
    if (!box) throw new Error('card has no box');
    const start = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    // The picture below shows the overlay at rest: held past its 2 s, taken once it has popped in and
    // the liked card has left (on a slow machine the title showed while both were half-way).
    await keepMatchOverlay(page);
    await page.mouse.move(start.x, start.y);
    await page.mouse.down();
    for (let step = 1; step <= 10; step += 1) await page.mouse.move(start.x + step * 16, start.y + step * 2);
    await shot('09-deck-dragging');
    await page.mouse.up();

    await page.getByRole('heading', { name: es['deck.match.title'] }).waitFor();
    await card.filter({ hasText: 'Marco' }).waitFor({ state: 'detached' });
    await entryAnimationsDone(page);
    await shot('10-match-overlay');
    await page.keyboard.press('Escape');
    await page.locator('.match-overlay').waitFor({ state: 'detached' });

    await page.getByRole('link', { name: es['app.nav.chats'] }).click();
    await page.waitForURL('**/app/matches');
    const matchLink = page.locator('.match-strip').getByRole('link', { name: /Marco/ });
    await matchLink.waitFor();
    await shot('11-matches');
    await matchLink.click();
    await page.waitForURL(/\/app\/chat\/\d+$/);
    const conversationId = Number(page.url().split('/').pop());
    await page.getByText(es['chat.empty']).waitFor();

    await page.getByPlaceholder(es['chat.placeholder']).fill('¡Hola Marco! ¿Dónde estás?');
    await page.getByRole('button', { name: es['chat.send'], exact: true }).tap();
    const mine = page.locator('.message-own', { hasText: '¡Hola Marco!' });
    await mine.waitFor();
    await expect.poll(() => mine.getAttribute('class')).toContain('is-sent');

    // Marco's side: his typing and his message arrive over the socket without a reload.
    const socket = await connect(app.server.url, marco.token);
    try {
      socket.emit('typing', { conversation_id: conversationId });
      await page.getByText(es['chat.typing'].replace('{name}', 'Marco')).waitFor();
      await shot('12-chat-typing');
      const sent = await api.post(`/api/conversations/${conversationId}/messages/`, { token: marco.token, json: { content: 'Junto a la barra 🍹' } });
      expect(sent.status).toBe(201);
      await page.locator('.message-partner', { hasText: 'Junto a la barra' }).waitFor();
      await shot('13-chat-live');
      expect(await page.locator('.verify-banner').isVisible()).toBe(true);
      expect(await aboveTheNav(page, '.composer')).toBe(true);
    } finally {
      socket.close();
    }

    const stored = await api.get(`/api/conversations/${conversationId}/messages/`, { token: marco.token });
    expect(stored.body.results.map((message: { content: string }) => message.content)).toEqual(['Junto a la barra 🍹', '¡Hola Marco! ¿Dónde estás?']);
  });

  it('logs out: local storage is cleared, except the language choice, and /app/ needs a token again', async () => {
    await page.getByRole('link', { name: es['app.logout'] }).click();
    await page.getByRole('dialog', { name: es['app.logoutAsk.title'] }).getByRole('button', { name: es['app.logoutAsk.confirm'] }).click();
    await page.waitForURL(`${app.server.url}/`);
    expect(await page.evaluate(() => localStorage.getItem('auth_token'))).toBeNull();
    await page.goto(`${app.server.url}/app/home/`);
    await page.waitForURL('**/login/');
  });
});
