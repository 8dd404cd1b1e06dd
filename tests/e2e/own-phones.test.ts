/**
 * One user on two phones at once (Chromium, 390×844 each): what she does on one shows on the other
 * live, without a reload.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import type { ProfileInput } from '../../shared/schemas/users';
import { makeCompletedUser, type TestUser, validProfile } from '../helpers/factories';
import { client } from '../helpers/http';
import { imageDataUri } from '../helpers/images';
import { waitUntil } from '../helpers/socket';
import { match } from '../realtime/fixtures';
import { hasChromium, keepMatchOverlay, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

describe.skipIf(!ready)('one user on two phones (Chromium, 390×844)', { timeout: 90_000 }, () => {
  const app = appInChromium();
  let ana: TestUser;
  let eve: TestUser;
  let finn: TestUser;
  let gus: TestUser;
  let hana: TestUser;
  let phone: Page;
  let tablet: Page;
  let tabletContext: BrowserContext;
  const api = () => client(app.server.url);
  /** Both of Ana's phones have their socket in her room: what the server tells her reaches both. */
  const bothLive = () =>
    waitUntil(async () => (await app.server.app.io.in(`user:${ana.id}`).fetchSockets()).length === 2, 10_000, 'both phones connected');

  beforeAll(async () => {
    const woman: Partial<ProfileInput> = { gender: 'female', genders_to_match: ['female'] };
    ana = await makeCompletedUser(app.server, { name: 'Ana', ...woman }, { firstName: 'Ana' });
    finn = await makeCompletedUser(app.server, { name: 'Finn', ...woman }, { firstName: 'Finn' });
    gus = await makeCompletedUser(app.server, { name: 'Gus', ...woman }, { firstName: 'Gus' });
    hana = await makeCompletedUser(app.server, { name: 'Hana', ...woman }, { firstName: 'Hana' });
    eve = await makeCompletedUser(app.server, { name: 'Eve', ...woman }, { firstName: 'Eve' });
    ({ page: phone } = await openPhone(app.browser, { token: ana.token, language: 'en' }));
    ({ page: tablet, context: tabletContext } = await openPhone(app.browser, { token: ana.token, language: 'en' }));
  }, 120_000);

  it('lists a block made elsewhere on the phone showing her blocked people, and the tablet shows the profile again once she unblocks there', async () => {
    await tablet.goto(`${app.server.url}/app/profiles/${eve.id}`);
    await tablet.getByRole('heading', { name: /Eve/ }).waitFor();
    await phone.goto(`${app.server.url}/app/settings/blocked/`);
    await phone.getByText(en['blocked.empty']).waitFor();
    await bothLive();

    expect((await api().post(`/api/users/${eve.id}/block/`, { token: ana.token })).status).toBe(204);
    await tablet.getByText(en['profileView.notFound']).waitFor();

    // The list open on the phone has her, without a reload.
    await phone.getByRole('button', { name: 'Unblock Eve' }).click();
    await phone.getByRole('dialog').getByRole('button', { name: en['blocked.unblock'] }).click();
    await phone.getByText('Eve is unblocked.').waitFor();
    // The tablet has not been reloaded: it heard it.
    await tablet.getByRole('heading', { name: /Eve/ }).waitFor();
    expect(await tablet.getByText(en['profileView.notFound']).count()).toBe(0);
  });

  const overlayOf = (page: Page) => page.getByRole('alertdialog', { name: en['deck.match.title'] });
  const chatsTab = (page: Page) => page.getByRole('navigation').getByRole('link', { name: new RegExp(en['app.nav.chats']) });
  /** How far Ana has seen her match with `conversationId`, as the server keeps it. */
  const seen = async (conversationId: number) =>
    (await api().get('/api/conversations/empty/', { token: ana.token })).body.results.find((item: { id: number }) => item.id === conversationId)?.seen;

  it('closes the match on the tablet once she has seen it on her phone, and its dot once she looks at her chats there', async () => {
    await Promise.all([phone, tablet].map((page) => page.goto(`${app.server.url}/app/home/`)));
    await Promise.all([phone, tablet].map((page) => chatsTab(page).waitFor()));
    // The tablet lies in her bag: its overlay waits there to be seen (its count runs only in view).
    await keepMatchOverlay(tablet);
    await bothLive();

    const conversationId = await match(app.server, ana, finn);
    await Promise.all([overlayOf(phone).waitFor(), overlayOf(tablet).waitFor()]);
    // Seen on the phone (its 2 s in view): the tablet does not keep it for later.
    await overlayOf(phone).waitFor({ state: 'detached' });
    await overlayOf(tablet).waitFor({ state: 'detached' });
    expect(await seen(conversationId)).toBe('overlay');

    // The dot on Chats stays on both until she looks at her chats, on either.
    await Promise.all([phone, tablet].map((page) => chatsTab(page).locator('.nav-dot').waitFor()));
    await chatsTab(phone).click();
    await phone.getByRole('link', { name: /Finn/ }).first().waitFor();
    await chatsTab(tablet).locator('.nav-dot').waitFor({ state: 'detached' });
    expect(await seen(conversationId)).toBe('chats');
  });

  it('shows a match seen on her phone no more on a tablet opened later, which keeps its dot until the chats are seen', async () => {
    await tablet.close();
    await phone.goto(`${app.server.url}/app/home/`);
    await chatsTab(phone).waitFor();
    await waitUntil(async () => (await app.server.app.io.in(`user:${ana.id}`).fetchSockets()).length === 1, 10_000, 'the phone connected');

    const conversationId = await match(app.server, ana, gus);
    await overlayOf(phone).waitFor();
    await overlayOf(phone).waitFor({ state: 'detached' });
    await waitUntil(async () => (await seen(conversationId)) === 'overlay', 5_000, 'the overlay seen');

    // The tablet's lists, kept from before, did not hold Gus: a match made meanwhile, already seen.
    tablet = await tabletContext.newPage();
    await tablet.goto(`${app.server.url}/app/home/`);
    await chatsTab(tablet).locator('.nav-dot').waitFor();
    expect(await overlayOf(tablet).count()).toBe(0);
  });

  it('shows on the tablet the photo she put on her profile from her phone, without a reload', async () => {
    await tablet.goto(`${app.server.url}/app/home/`);
    const avatar = tablet.locator('.top-user-btn img.avatar');
    await avatar.waitFor();
    /** The photo the avatar shows, without the size it asks for. */
    const photo = async () => (await avatar.getAttribute('src'))?.split('?')[0];
    const before = await photo();
    await bothLive();
    const saved = await api().put('/api/users/me/profile/', { token: ana.token, json: await validProfile({ name: 'Ana', image: await imageDataUri('jpeg') }) });
    expect(saved.status).toBe(200);
    await expect.poll(photo, { timeout: 10_000 }).toBe(saved.body.image);
    expect(saved.body.image).not.toBe(before);
  });

  it('lets a phone left on her chats in a pocket take neither the overlay nor the dot from the one in her hand', async () => {
    /** The page hidden or shown, as a phone put in a pocket and taken out. */
    const inPocket = (page: Page, hidden: boolean) =>
      page.evaluate((state) => {
        Object.defineProperty(document, 'visibilityState', { value: state, configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      }, hidden ? 'hidden' : 'visible');
    await phone.goto(`${app.server.url}/app/matches/`);
    await phone.getByRole('link', { name: /Gus/ }).first().waitFor();
    await inPocket(phone, true);
    await tablet.goto(`${app.server.url}/app/home/`);
    await chatsTab(tablet).waitFor();
    await keepMatchOverlay(tablet);
    await bothLive();

    const conversationId = await match(app.server, ana, hana);
    await overlayOf(tablet).waitFor();
    // Unseen in the pocket: the phone keeps its dot for when it is taken out.
    await chatsTab(phone).locator('.nav-dot').waitFor();
    expect(await seen(conversationId)).toBeNull();
    expect(await overlayOf(tablet).count()).toBe(1);

    await inPocket(phone, false);
    await chatsTab(phone).locator('.nav-dot').waitFor({ state: 'detached' });
    await overlayOf(tablet).waitFor({ state: 'detached' });
    expect(await seen(conversationId)).toBe('chats');
  });

  it('brings someone she unblocks back into the deck on her tablet, and on the phone she unblocked them on, without a reload', async () => {
    const man: Partial<ProfileInput> = { gender: 'male', genders_to_match: ['male'] };
    const ivo = await makeCompletedUser(app.server, { name: 'Ivo', ...man }, { firstName: 'Ivo' });
    const jon = await makeCompletedUser(app.server, { name: 'Jon', ...man }, { firstName: 'Jon' });
    expect((await api().post(`/api/users/${jon.id}/block/`, { token: ivo.token })).status).toBe(204);
    const { page: ivoPhone } = await openPhone(app.browser, { token: ivo.token, language: 'en' });
    const { page: ivoTablet } = await openPhone(app.browser, { token: ivo.token, language: 'en' });
    // The tablet shows the deck, empty: Jon, the one man for him, is blocked.
    await ivoTablet.goto(`${app.server.url}/app/home/`);
    await ivoTablet.getByText(en['deck.empty']).waitFor();
    await ivoPhone.goto(`${app.server.url}/app/settings/blocked/`);
    await waitUntil(async () => (await app.server.app.io.in(`user:${ivo.id}`).fetchSockets()).length === 2, 10_000, 'both phones connected');

    await ivoPhone.getByRole('button', { name: 'Unblock Jon' }).click();
    await ivoPhone.getByRole('dialog').getByRole('button', { name: en['blocked.unblock'] }).click();
    await ivoPhone.getByText('Jon is unblocked.').waitFor();
    // Never answered, Jon fits Ivo's deck again: the tablet's, on screen, takes him without a reload;
    // the phone's, as he goes back to it.
    await ivoTablet.getByTestId('swipe-card').filter({ hasText: 'Jon' }).waitFor();
    await ivoPhone.getByRole('navigation').getByRole('link', { name: en['app.nav.home'] }).click();
    await ivoPhone.getByTestId('swipe-card').filter({ hasText: 'Jon' }).waitFor();
    await Promise.all([ivoPhone, ivoTablet].map((page) => page.context().close()));
  });

  it('brings a profile saved on her phone into the form open on the tablet: whole when untouched, under her edits there otherwise', async () => {
    await Promise.all([phone, tablet].map((page) => page.goto(`${app.server.url}/app/profile/`)));
    const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });
    const stored = async () => {
      const { name, bio } = (await api().get('/api/users/me/profile/', { token: ana.token })).body;
      return { name, bio };
    };
    /** Saves the form on `page`, until the server holds `expected`. */
    const save = async (page: Page, expected: { name: string; bio: string }) => {
      await page.getByRole('button', { name: en['profile.save'] }).click();
      await expect.poll(stored, { timeout: 10_000 }).toEqual(expected);
    };
    const notice = tablet.getByRole('status').filter({ hasText: en['profile.changedElsewhere'] });
    await expect.poll(() => field(tablet, en['profile.name']).inputValue()).toBe('Ana');
    await expect.poll(() => field(phone, en['profile.name']).inputValue()).toBe('Ana');
    await bothLive();

    // Untouched on the tablet: it shows the phone's save as it is.
    await field(phone, en['profile.bio']).fill('Saved on the phone.');
    await save(phone, { name: 'Ana', bio: 'Saved on the phone.' });
    await expect.poll(() => field(tablet, en['profile.bio']).inputValue()).toBe('Saved on the phone.');
    expect(await notice.count()).toBe(0);

    // Her name changed on the tablet, the bio again on the phone: the tablet keeps its name, takes the
    // bio, and says so. Its save keeps both.
    await field(tablet, en['profile.name']).fill('Ana T');
    await field(phone, en['profile.bio']).fill('Saved on the phone again.');
    await save(phone, { name: 'Ana', bio: 'Saved on the phone again.' });
    await notice.waitFor();
    expect(await field(tablet, en['profile.bio']).inputValue()).toBe('Saved on the phone again.');
    expect(await field(tablet, en['profile.name']).inputValue()).toBe('Ana T');
    await save(tablet, { name: 'Ana T', bio: 'Saved on the phone again.' });
    await notice.waitFor({ state: 'detached' });

    // Undone on the tablet: the profile as the phone saved it, nothing left to save or to ask about.
    await expect.poll(() => field(phone, en['profile.name']).inputValue()).toBe('Ana T');
    await field(tablet, en['profile.name']).fill('Ana X');
    await field(phone, en['profile.bio']).fill('Saved on the phone a third time.');
    await save(phone, { name: 'Ana T', bio: 'Saved on the phone a third time.' });
    await notice.waitFor();
    await tablet.getByRole('button', { name: en['profile.undoMine'] }).click();
    await notice.waitFor({ state: 'detached' });
    expect(await field(tablet, en['profile.name']).inputValue()).toBe('Ana T');
    expect(await field(tablet, en['profile.bio']).inputValue()).toBe('Saved on the phone a third time.');
    // Nothing of hers left unsaved: the chats open without asking first.
    await chatsTab(tablet).click();
    await tablet.waitForURL('**/app/matches');
  });
});
