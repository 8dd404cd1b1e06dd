/**
 * The profile editor in Debian's Chromium on a small phone (360×640), against the real server: the
 * age range's two thumbs dragged by touch (both within reach where they meet) and moved by keyboard,
 * and the changes not lost to the phone's back gesture, which asks first as a link does, leaving no
 * extra history entry, nor to another phone's save this one never heard of; a refused save's first
 * field error brought into view (and focus) clear of the sticky save button.
 * Screenshots land in tests/e2e/artifacts/.
 */
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_AGE, MIN_AGE } from '../../shared/constants';
import { es } from '../../shared/i18n/es';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';
import { makeCompletedUser, makeUser, type TestUser } from '../helpers/factories';
import { imageBytes } from '../helpers/images';
import { client } from '../helpers/http';
import { waitUntil } from '../helpers/socket';
import { entryAnimationsDone, hasChromium, keepShot, openPhone, overlayOnTop } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();
const SMALL_PHONE = { width: 360, height: 640 };
const BIO = 'Salsa los jueves, bachata cuando se puede.';

describe.skipIf(!ready)('the profile editor end to end (Chromium, 360×640)', { timeout: 90_000 }, () => {
  const app = appInChromium();
  let user: TestUser;

  beforeAll(async () => {
    user = await makeCompletedUser(app.server, { name: 'Carmen', bio: BIO, min_matching_age: 25, max_matching_age: 40 }, { firstName: 'Carmen' });
  });

  const shot = keepShot;
  async function phone() {
    const { page } = await openPhone(app.browser, { token: user.token, language: 'es' });
    page.on('pageerror', (error) => console.error('page error:', error));
    await page.setViewportSize(SMALL_PHONE);
    return page;
  }
  /** Home first, then the profile by the bottom nav: a page to go back to. */
  async function profileFromHome(page: Page) {
    await page.goto(`${app.server.url}/app/home/`);
    await page.locator('.bottom-nav').getByRole('link', { name: es['app.nav.profile'] }).click();
    await page.waitForURL('**/app/profile');
    await expect.poll(() => page.getByLabel(es['profile.bio']).inputValue()).toBe(BIO);
  }
  const pathname = (page: Page) => new URL(page.url()).pathname.replace(/\/+$/, '');
  /**
   * Until the guard's entry is on top of the history and the browser has had two frames to hear of it.
   * The page pushes it in the keystroke's own task, but Chrome's browser process learns of a
   * `pushState` by a message of its own; a Back sent by the test at once can reach the browser first
   * and go back past the page, which no finger is quick enough to do.
   */
  async function guardArmed(page: Page) {
    await expect.poll(() => overlayOnTop(page)).toBe(true);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  }
  const discardSheet = (page: Page) => page.getByRole('dialog', { name: es['profile.discardTitle'] });

  it('drags both thumbs of the age range by touch, also where they meet at the top end', async () => {
    const page = await phone();
    await page.goto(`${app.server.url}/app/profile/`);
    const min = page.getByRole('slider', { name: es['profile.minAge'] });
    const max = page.getByRole('slider', { name: es['profile.maxAge'] });
    // In the middle of the screen: clear of the sticky save button and the bottom nav.
    await min.evaluate((input) => input.scrollIntoView({ block: 'center' }));
    expect(await page.getByRole('group', { name: es['profile.ageRange'] }).count()).toBe(1);
    expect([await min.inputValue(), await max.inputValue()]).toEqual(['25', '40']);
    // A thumb for a finger: the min one (at 25) answers a touch 13 px either side of its centre.
    const box = await min.boundingBox();
    if (!box) throw new Error('no slider box');
    const centre = { x: box.x + 14 + ((25 - MIN_AGE) / (MAX_AGE - MIN_AGE)) * (box.width - 28), y: box.y + box.height / 2 };
    const hit = (dx: number, dy: number) => page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.getAttribute('aria-label'), [centre.x + dx, centre.y + dy]);
    for (const [dx, dy] of [[0, 0], [-13, 0], [13, 0], [0, -13], [0, 13]] as const) expect(await hit(dx, dy)).toBe(es['profile.minAge']);
    // … and only there: the track around it lets the touch through (to scroll the page).
    for (const [dx, dy] of [[-20, 0], [0, -20]] as const) expect(await hit(dx, dy)).not.toBe(es['profile.minAge']);
    await shot(page, 'profile-age-range-360');

    const cdp = await page.context().newCDPSession(page);
    /** A finger on the thumb at `from` (the ages), moved to `to` in small steps, and lifted. */
    async function swipe(input: Locator, from: number, to: number) {
      const area = await input.boundingBox();
      if (!area) throw new Error('no slider box');
      const x = (age: number) => area.x + 14 + ((age - MIN_AGE) / (MAX_AGE - MIN_AGE)) * (area.width - 28);
      const y = area.y + area.height / 2;
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: x(from), y }] });
      for (let step = 1; step <= 10; step += 1) {
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: x(from + ((to - from) * step) / 10), y }] });
      }
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    }

    await swipe(max, 40, MAX_AGE + 5);
    await expect.poll(() => max.inputValue()).toBe(String(MAX_AGE));
    // The min thumb pushed up to the max one stops there.
    await swipe(min, 25, MAX_AGE + 5);
    await expect.poll(() => min.inputValue()).toBe(String(MAX_AGE));
    expect(await max.inputValue()).toBe(String(MAX_AGE));
    await page.getByText(es['profile.ageRangeValue'].replace('{min}', '100').replace('{max}', '100')).waitFor();
    await shot(page, 'profile-age-range-met-at-100');

    // Met at 100: the finger takes the min thumb down; then the max one is within reach again.
    await swipe(min, MAX_AGE, 60);
    await expect.poll(() => min.inputValue()).toBe('60');
    expect(await max.inputValue()).toBe(String(MAX_AGE));
    await swipe(max, MAX_AGE, 80);
    await expect.poll(() => max.inputValue()).toBe('80');

    // By keyboard, the browser's own: a thumb stops at the other.
    await min.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => min.inputValue()).toBe('61');
    await shot(page, 'profile-age-range-keyboard-focus');
    await max.focus();
    await page.keyboard.press('End');
    await expect.poll(() => max.inputValue()).toBe(String(MAX_AGE));
    await page.keyboard.press('Home');
    await expect.poll(() => max.inputValue()).toBe('61');
    // Met in the middle: the finger on the two thumbs dragging up takes the max one along.
    await swipe(min, 61, 75);
    await expect.poll(() => max.inputValue()).toBe('75');
    expect(await min.inputValue()).toBe('61');

    await page.getByRole('button', { name: es['profile.save'] }).click();
    await page.getByText(es['profile.saved']).waitFor();
    await page.context().close();
  });

  it('opens with the preferences in view when the empty deck\'s "Change preferences" leads there', async () => {
    const page = await phone();
    await page.goto(`${app.server.url}/app/profile/#preferences`);
    const preferences = page.getByRole('group', { name: es['profile.gendersToMatch'] });
    // Between the top bar and the sticky save button, where a thumb reaches them.
    await expect
      .poll(() =>
        preferences.evaluate((group) => {
          const box = group.getBoundingClientRect();
          const save = document.querySelector('.edit-profile button[type="submit"]')!.getBoundingClientRect();
          return window.scrollY > 0 && box.top >= 0 && box.top < save.top;
        }),
      )
      .toBe(true);
    await shot(page, 'profile-preferences-360');
  });

  it('asks before the back gesture drops the changes: "keep editing" keeps them and the page, "discard" leaves', async () => {
    const page = await phone();
    await profileFromHome(page);
    const bio = page.getByLabel(es['profile.bio']);
    await bio.fill('Aquí solo por el merengue.');

    await guardArmed(page);
    await page.goBack();
    await discardSheet(page).waitFor();
    await entryAnimationsDone(page);
    await shot(page, 'profile-back-asks');
    expect(pathname(page)).toBe('/app/profile');
    await page.getByRole('button', { name: es['profile.keepEditing'] }).click();
    await expect.poll(() => discardSheet(page).count()).toBe(0);
    expect(pathname(page)).toBe('/app/profile');
    expect(await bio.inputValue()).toBe('Aquí solo por el merengue.');

    // Asked again on the next back, as many times as it takes.
    await guardArmed(page);
    await page.goBack();
    await discardSheet(page).waitFor();
    await page.getByRole('button', { name: es['profile.discard'] }).click();
    await page.waitForURL('**/app/home/');
    await expect.poll(() => discardSheet(page).count()).toBe(0);

    // Nothing was saved; the profile opens as it was.
    await page.locator('.bottom-nav').getByRole('link', { name: es['app.nav.profile'] }).click();
    await expect.poll(() => bio.inputValue()).toBe(BIO);
    await page.context().close();
  });

  it('keeps what is being written when the profile, read again meanwhile, arrives after the first keystrokes', async () => {
    const { page } = await openPhone(app.browser, { token: user.token, language: 'es' });
    await page.setViewportSize(SMALL_PHONE);
    await profileFromHome(page);
    // The tab comes back to the front, untouched: the profile is read again, and its answer is slow.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    await page.route('**/api/users/me/profile/', async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      asked = true;
      await held;
      await route.continue();
    });
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await expect.poll(() => asked).toBe(true);
    const bio = page.getByLabel(es['profile.bio']);
    await bio.fill('Escribiendo mientras tanto.');
    const answered = page.waitForResponse((response) => response.url().endsWith('/api/users/me/profile/') && response.request().method() === 'GET');
    release();
    await answered;
    // Whatever renders after the answer: the text stays, and the form still counts as changed.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(await bio.inputValue()).toBe('Escribiendo mientras tanto.');
    await guardArmed(page);
    await page.goBack();
    await discardSheet(page).waitFor();
    await page.context().close();
  });

  it('leaves no extra history entry after a save, or after a link is tapped and the changes discarded', async () => {
    const page = await phone();
    await profileFromHome(page);
    const entries = await page.evaluate(() => history.length);
    const bio = page.getByLabel(es['profile.bio']);

    // Saved: back goes straight home, not asked, not stopped on a second profile entry.
    await bio.fill(`${BIO} `);
    await bio.fill(BIO.replace('jueves', 'viernes'));
    await page.getByRole('button', { name: es['profile.save'] }).click();
    await page.getByText(es['profile.saved']).waitFor();
    await expect.poll(() => overlayOnTop(page)).toBe(false);
    await page.goBack();
    await page.waitForURL('**/app/home/');
    expect(await discardSheet(page).count()).toBe(0);

    // A link tapped with changes: asked; discarded, the next page takes the guard's place.
    await page.locator('.bottom-nav').getByRole('link', { name: es['app.nav.profile'] }).click();
    await expect.poll(() => bio.inputValue()).toBe(BIO.replace('jueves', 'viernes'));
    await bio.fill('Otra cosa.');
    await page.locator('.bottom-nav').getByRole('link', { name: es['app.nav.chats'] }).click();
    await discardSheet(page).waitFor();
    expect(pathname(page)).toBe('/app/profile');
    await page.getByRole('button', { name: es['profile.discard'] }).click();
    await page.waitForURL('**/app/matches');
    // home → profile → chats: one step back is the profile (unchanged), the next is home.
    await page.goBack();
    await page.waitForURL('**/app/profile');
    await expect.poll(() => bio.inputValue()).toBe(BIO.replace('jueves', 'viernes'));
    await page.goBack();
    await page.waitForURL('**/app/home/');
    expect(await page.evaluate(() => history.length)).toBe(entries + 1);
    await page.context().close();
  });

  it('saves over a change made on another phone whose news never came only once that change is in the form, with hers', async () => {
    const room = `user:${user.id}`;
    const opened = Date.now();
    const page = await phone();
    await page.goto(`${app.server.url}/app/profile/`);
    const bio = page.getByLabel(es['profile.bio']);
    const name = page.getByLabel(es['profile.name'], { exact: true });
    const api = client(app.server.url);
    const { version, ...profile } = (await api.get('/api/users/me/profile/', { token: user.token })).body;
    await expect.poll(() => bio.inputValue()).toBe(profile.bio);
    // The page's socket misses what is said to her: the other phone's save goes unheard here.
    const connected = async () => (await app.server.app.io.in(room).fetchSockets()).some((socket) => socket.handshake.issued >= opened);
    await waitUntil(connected, 10_000, 'the page connected');
    app.server.app.io.in(room).socketsLeave(room);
    expect((await api.put('/api/users/me/profile/', { token: user.token, json: { ...profile, name: 'Carmen M.', version } })).status).toBe(200);

    await bio.fill('Mi cambio, sobre uno que no he visto.');
    await page.getByRole('button', { name: es['profile.save'] }).click();
    // Refused: the other phone's name comes in, her bio stays, and the page says so.
    await page.getByRole('status').filter({ hasText: es['profile.changedElsewhere'] }).waitFor();
    await expect.poll(() => name.inputValue()).toBe('Carmen M.');
    expect(await bio.inputValue()).toBe('Mi cambio, sobre uno que no he visto.');
    expect((await api.get('/api/users/me/profile/', { token: user.token })).body.bio).toBe(profile.bio);
    await entryAnimationsDone(page);
    await shot(page, 'profile-changed-elsewhere');

    // Saved again: both changes kept.
    await page.getByRole('button', { name: es['profile.save'] }).click();
    await page.getByText(es['profile.saved']).waitFor();
    const now = (await api.get('/api/users/me/profile/', { token: user.token })).body;
    expect([now.name, now.bio]).toEqual(['Carmen M.', 'Mi cambio, sobre uno que no he visto.']);
    // As it was, for whatever runs next.
    expect((await api.put('/api/users/me/profile/', { token: user.token, json: { ...now, name: profile.name, bio: profile.bio } })).status).toBe(200);
    await page.context().close();
  });

  it('takes the save button off the field written in while the keyboard is up, and shows every field whole above it (360×740)', async () => {
    const page = await phone();
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${app.server.url}/app/profile/`);
    await expect.poll(() => page.getByLabel(es['profile.bio']).inputValue()).not.toBe('');
    const bio = page.getByLabel(es['profile.bio']);
    /** The bio's box and the save button's, as they are on the screen; the button null when it is not on it. */
    const boxes = () =>
      page.evaluate(() => {
        const rect = (selector: string) => document.querySelector(selector)!.getBoundingClientRect();
        const save = rect('.sticky-save');
        return { bio: rect('textarea[name="bio"]').toJSON() as DOMRect, save: save.top < window.innerHeight ? save.top : null, top: rect('.top-bar').bottom, height: window.innerHeight };
      });
    const bioClear = async () => {
      const { bio: box, save, top, height } = await boxes();
      return box.top >= top && box.bottom <= Math.min(save ?? height, height);
    };
    // Tapped where it is whole in the 420 px the keyboard will leave of the 740 (index.html has it
    // resize the page), but low in them: the phone scrolls a field only when it would be out of sight,
    // so nothing moves as the keyboard comes up, and the button must not come over it there.
    await bio.tap();
    await bio.evaluate((element) => window.scrollBy(0, element.getBoundingClientRect().bottom - 410));
    await expect.poll(bioClear).toBe(true);
    await page.setViewportSize({ width: 360, height: 420 });
    await expect.poll(() => page.locator('.bottom-nav').isVisible()).toBe(false);
    await expect.poll(bioClear).toBe(true);
    await shot(page, 'profile-keyboard-bio-360x420');
    // Scrolled to the end with the keyboard still up: the last field whole, the button after it.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const end = () =>
      page.evaluate(() => [[...document.querySelectorAll('.edit-profile .field')].at(-1)!.getBoundingClientRect().bottom, document.querySelector('.sticky-save')!.getBoundingClientRect().top]);
    const [lastField, saveTop] = await end();
    expect(lastField).toBeLessThanOrEqual(saveTop!);
    // Tapped there, it saves at once: the tap leaves the focus in the bio, so nothing moves under the
    // finger (the bottom bar back, the button up over it) between its touch and its lift.
    const save = (await page.locator('.sticky-save').boundingBox())!;
    await page.touchscreen.tap(save.x + save.width / 2, save.y + save.height / 2);
    await page.getByText(es['profile.saved']).waitFor();
    // Down again: the button is back over the bottom bar, and the last field still whole above it.
    await bio.blur();
    await page.setViewportSize({ width: 360, height: 740 });
    await expect.poll(() => page.locator('.bottom-nav').isVisible()).toBe(true);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const [lastAgain, saveAgain] = await end();
    expect(lastAgain).toBeLessThanOrEqual(saveAgain!);
  });

  it('says a missing photo, then a missing birth date, under its field, brought into view and focused (360×740)', async () => {
    const newcomer = await makeUser(app.server, { firstName: 'Rita' });
    const { page } = await openPhone(app.browser, { token: newcomer.token, language: 'es' });
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${app.server.url}/app/profile/`);
    await page.getByRole('heading', { name: es['profile.title'] }).waitFor();
    await page.getByLabel(es['profile.bio']).fill('');
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const save = page.getByRole('button', { name: es['profile.save'] });
    const inView = (locator: Locator) =>
      locator.evaluate((element) => {
        const box = element.getBoundingClientRect();
        const top = document.querySelector('.top-bar')!.getBoundingClientRect().bottom;
        const bottom = document.querySelector('.sticky-save')!.getBoundingClientRect().top;
        return box.height > 0 && box.top >= top && box.bottom <= bottom;
      });

    await save.click();
    const photos = page.getByRole('group', { name: es['profile.photos'] });
    const needPhoto = photos.getByText(es['profile.needPhoto']);
    await needPhoto.waitFor();
    await expect.poll(() => inView(needPhoto)).toBe(true);
    expect(await photos.evaluate((fieldset) => fieldset.contains(document.activeElement))).toBe(true);
    // The missing date is said at the same time, under its own field: one refusal does not hide the next.
    const needDate = page.locator('#dob-error').getByText(es['profile.needDate']);
    await needDate.waitFor();
    // And what the server refuses beside them, in the same answer: not one more save to find out.
    await page.locator('#bio-error').getByText(SERVER_MESSAGES.blank.es).waitFor();
    await page.getByLabel(es['profile.bio']).fill('Aquí por la música.');
    expect(await page.locator('#bio-error').count()).toBe(0);
    // A photo added takes the line away with the toast.
    await page.getByTestId('photo-input').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: await imageBytes('png', { width: 600, height: 800, color: '#0ea5e9' }) });
    await page.getByTestId('photo-grid').locator('img[src^="/media/"]').waitFor();
    await needPhoto.waitFor({ state: 'detached' });
    // Its remove button, drawn at 36 px, takes a finger's 44: 3 px outside what is drawn is the button's.
    const remove = page.getByTestId('photo-grid').locator('.photo-remove');
    const drawn = (await remove.boundingBox())!;
    const touched = (dx: number, dy: number) =>
      page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.closest('button')?.className ?? null, [drawn.x + dx, drawn.y + dy]);
    expect([await touched(-3, drawn.height / 2), await touched(drawn.width / 2, drawn.height + 3)]).toEqual(['photo-action photo-remove', 'photo-action photo-remove']);

    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await save.click();
    await needDate.waitFor();
    await expect.poll(() => inView(needDate)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('date_of_birth');
    await shot(page, 'profile-needs-date-360x740');
    // Opened on a small phone, the month shows whole, clear of the save button and the bars.
    await page.setViewportSize({ width: 320, height: 568 });
    await page.getByLabel(es['profile.dateOfBirth']).click();
    const popover = page.getByRole('dialog', { name: es['profile.dateOfBirth'] });
    await expect
      .poll(() =>
        popover.evaluate((element) => {
          const box = element.getBoundingClientRect();
          return box.top >= document.querySelector('.top-bar')!.getBoundingClientRect().bottom && box.bottom <= document.querySelector('.sticky-save')!.getBoundingClientRect().top;
        }),
      )
      .toBe(true);
    // Seven days a row, each as wide as the month allows a finger.
    const days = await popover.locator('.date-day').evaluateAll((buttons) => buttons.map((button) => button.getBoundingClientRect().width));
    expect(Math.min(...days)).toBeGreaterThanOrEqual(39);
    await shot(page, 'profile-date-picker-320x568');
  });

  it('keeps a first profile being written when the deck is tapped: it says to complete it first, and stays', async () => {
    const newcomer = await makeUser(app.server, { firstName: 'Lola' });
    const { page } = await openPhone(app.browser, { token: newcomer.token, language: 'es' });
    await page.goto(`${app.server.url}/app/profile/`);
    await page.getByLabel(es['profile.bio']).fill('Aquí por la música.');
    await page.locator('.bottom-nav').getByRole('link', { name: es['app.nav.home'] }).click();
    await page.locator('.toast', { hasText: es['profile.completeFirst'] }).waitFor();
    expect(pathname(page)).toBe('/app/profile');
    expect(await page.getByLabel(es['profile.bio']).inputValue()).toBe('Aquí por la música.');
    expect(await discardSheet(page).count()).toBe(0);
    await shot(page, 'profile-first-deck-tapped');
    // A page open to a first profile (the events) is left as any other, asking first.
    await page.locator('.bottom-nav').getByRole('link', { name: es['app.nav.events'] }).click();
    await discardSheet(page).waitFor();
  });

  it('keeps the save button solid while a save is on its way: the fields scrolled under it do not show through', async () => {
    const page = await phone();
    await page.goto(`${app.server.url}/app/profile/`);
    await expect.poll(() => page.getByLabel(es['profile.bio']).inputValue()).not.toBe('');
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/users/me/profile/', async (route) => {
      if (route.request().method() === 'PUT') await held;
      await route.continue();
    });
    const save = page.getByRole('button', { name: es['profile.save'] });
    await save.click();
    await expect.poll(() => save.getAttribute('aria-disabled')).toBe('true');
    // Drawn as busy, it still hides what lies under it: a see-through button over the checkboxes
    // read as both at once.
    const drawn = await save.evaluate((button) => {
      const style = getComputedStyle(button);
      return { opacity: style.opacity, background: style.backgroundColor };
    });
    expect(drawn.opacity).toBe('1');
    // No alpha (`rgba(…)`, `… / 0.5)`, `transparent`): an opaque colour, however the browser writes it.
    expect(drawn.background).not.toMatch(/rgba|\/|transparent/);
    await entryAnimationsDone(page);
    await shot(page, 'profile-saving-360x640');
    release();
    await page.getByText(es['profile.saved']).waitFor();
    await page.context().close();
  });

  it('brings a field the save was refused for into view and focus, clear of the sticky save button (360×740)', async () => {
    const page = await phone();
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${app.server.url}/app/profile/`);
    await expect.poll(() => page.getByLabel(es['profile.bio']).inputValue()).not.toBe('');
    const genders = page.getByRole('group', { name: es['profile.gendersToMatch'] });
    const boxes = genders.getByRole('checkbox');
    for (const box of await boxes.all()) await box.uncheck();
    // As a thumb leaves the page after the last tap: the checkboxes just above the save button, where
    // the error line under them would come out behind it.
    const save = page.getByRole('button', { name: es['profile.save'] });
    const last = boxes.last();
    await page.evaluate(
      ([lastBottom, saveTop]) => window.scrollBy(0, lastBottom! - (saveTop! - 8)),
      [(await last.boundingBox())!.y + (await last.boundingBox())!.height, (await save.boundingBox())!.y],
    );
    await save.click();
    const error = page.getByText(SERVER_MESSAGES.genders_required.es);
    await error.waitFor();
    /** The error line's box, the save button's and the top bar's, as they are on the screen. */
    const boxesNow = () =>
      page.evaluate(() => {
        const rect = (selector: string) => document.querySelector(selector)!.getBoundingClientRect().toJSON() as DOMRect;
        return { error: rect('#gtm-error'), save: rect('.sticky-save'), top: rect('.top-bar'), height: window.innerHeight };
      });
    await expect
      .poll(async () => {
        const { error: line, save: button, top, height } = await boxesNow();
        return line.height > 0 && line.top >= top.bottom && line.bottom <= button.top && line.bottom <= height;
      })
      .toBe(true);
    // Focus went there too: a screen reader is taken to the field and hears what is wrong with it.
    expect(await genders.evaluate((fieldset) => fieldset.contains(document.activeElement))).toBe(true);
    expect(await boxes.first().getAttribute('aria-describedby')).toContain('gtm-error');
    await entryAnimationsDone(page);
    await shot(page, 'profile-error-above-save-360x740');

    // Scrolled to the end of the form, the last fields and their error lines are above the button.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const { error: line, save: button } = await boxesNow();
    expect(line.bottom).toBeLessThanOrEqual(button.top);
    const lastField = await page.evaluate(() => [...document.querySelectorAll('.edit-profile .field')].at(-1)!.getBoundingClientRect().bottom);
    expect(lastField).toBeLessThanOrEqual(button.top);
    await shot(page, 'profile-form-end-360x740');

    // An empty name is said the app's way, under the field and in the app's language, not by a
    // bubble of the browser's own (in the phone's language): the form does not validate natively.
    const name = page.getByLabel(es['profile.name']);
    await name.fill('');
    await save.click();
    await page.locator('#name-error').getByText(SERVER_MESSAGES.blank.es).waitFor();
    expect(await name.evaluate((input) => input === document.activeElement)).toBe(true);
    await page.context().close();
  });
});
