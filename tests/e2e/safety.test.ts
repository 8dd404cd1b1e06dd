/**
 * Safety in Chromium (390×844): Ana blocks Ben from the chat menu and the conversation leaves both
 * screens live; Ana reports Carl with a reason; a moderator bans Carl from /app/moderation/ and
 * Carl's open tab is signed out; Ana unblocks Ben from her blocked list; a profile's menu blocks too;
 * a chat's Report and Block open with no network.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import { MAX_SOCKETS_PER_USER, TOAST_AUTO_CLOSE_MS } from '../../shared/constants';
import { es } from '../../shared/i18n/es';
import { format } from '../../shared/i18n/format';
import type { ProfileInput } from '../../shared/schemas/users';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { makeModerator } from '../helpers/safety';
import { connect } from '../helpers/socket';
import { match } from '../realtime/fixtures';
import { entryAnimationsDone, hasChromium, keepShot, openPhone, overlayOnTop, PHONE, socketCaughtUp } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();
const LAPTOP = { width: 1280, height: 800 };

interface Tab {
  context: BrowserContext;
  page: Page;
}

describe.skipIf(!ready)('block, report and moderation in the browser (Chromium, 390×844)', { timeout: 90_000 }, () => {
  const app = appInChromium();
  let ana: TestUser;
  let ben: TestUser;
  let carl: TestUser;
  let dana: TestUser;
  let moderator: TestUser;
  let anaBen: number;
  let anaCarl: number;
  let anaTab: Tab;
  let benTab: Tab;
  let carlTab: Tab;
  let modTab: Tab;
  const api = () => client(app.server.url);
  async function shot(page: Page, name: string, options: { fullPage?: boolean } = {}) {
    await entryAnimationsDone(page);
    await keepShot(page, `safety-${name}`, options);
  }

  async function say(from: TestUser, conversationId: number, content: string) {
    const sent = await api().post(`/api/conversations/${conversationId}/messages/`, { token: from.token, json: { content } });
    expect(sent.status).toBe(201);
  }
  /** True while the page has not been reloaded since `markNoReload`. */
  const markNoReload = (page: Page) => page.evaluate(() => Object.assign(window, { noReload: true }));
  const stillNoReload = (page: Page) => page.evaluate(() => (window as unknown as { noReload?: boolean }).noReload === true);

  beforeAll(async () => {
    const woman: Partial<ProfileInput> = { gender: 'female', genders_to_match: ['male'] };
    const man: Partial<ProfileInput> = { gender: 'male', genders_to_match: ['female'] };
    ana = await makeCompletedUser(app.server, { name: 'Ana', ...woman }, { firstName: 'Ana' });
    ben = await makeCompletedUser(app.server, { name: 'Ben', ...man }, { firstName: 'Ben' });
    carl = await makeCompletedUser(app.server, { name: 'Carl', bio: 'Here for trouble.', ...man }, { firstName: 'Carl' });
    dana = await makeCompletedUser(app.server, { name: 'Dana', ...man }, { firstName: 'Dana' });
    moderator = await makeModerator(app.server, { name: 'Mod' });
    anaBen = await match(app.server, ben, ana);
    anaCarl = await match(app.server, carl, ana);
    await say(ben, anaBen, 'Hi Ana, great party!');
    await say(ana, anaBen, 'Hi Ben!');
    await say(carl, anaCarl, 'Answer me or else.');
    await say(ana, anaCarl, 'Please stop.');

    anaTab = await openPhone(app.browser, { token: ana.token, language: 'en' });
    benTab = await openPhone(app.browser, { token: ben.token, language: 'es' });
    carlTab = await openPhone(app.browser, { token: carl.token, language: 'en' });
    modTab = await openPhone(app.browser, { token: moderator.token, language: 'en' });
  }, 120_000);

  it('Ana blocks Ben from the chat menu: the conversation leaves both screens live', async () => {
    const { page } = anaTab;
    const benPage = benTab.page;
    await page.goto(`${app.server.url}/app/chat/${anaBen}`);
    await page.locator('.message', { hasText: 'Hi Ana, great party!' }).waitFor();
    await benPage.goto(`${app.server.url}/app/chat/${anaBen}`);
    await benPage.locator('.message', { hasText: 'Hi Ben!' }).waitFor();
    await markNoReload(benPage);

    await page.getByRole('button', { name: en['safety.menu'] }).click();
    const menu = page.getByRole('menu');
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual([en['safety.report'], en['safety.block'], en['safety.unmatch']]);
    await shot(page, '01-chat-menu');

    await menu.getByRole('menuitem', { name: en['safety.block'] }).click();
    const dialog = page.getByRole('dialog', { name: 'Block Ben?' });
    await dialog.getByText(en['safety.block.text']).waitFor();
    // Cancel has the focus: the destructive button is never one Enter away.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(en['safety.cancel']);
    await shot(page, '02-block-confirm');
    await dialog.getByRole('button', { name: en['safety.block.confirm'] }).click();

    await page.waitForURL('**/app/matches/');
    await page.getByText('You blocked Ben.').waitFor();
    await page.getByRole('link', { name: /Carl/ }).first().waitFor();
    expect(await page.getByRole('link', { name: /Ben/ }).count()).toBe(0);
    await shot(page, '03-ana-after-block');

    // Ben's open chat: a calm notice on the list it went back to, in Spanish, without a reload.
    await benPage.waitForURL('**/app/matches/');
    await benPage.getByRole('status').getByText(es['chat.ended'].replace('{name}', 'Ana')).waitFor();
    expect(await benPage.getByRole('link', { name: /Ana/ }).count()).toBe(0);
    expect(await benPage.getByRole('alert').count()).toBe(0);
    expect(await stillNoReload(benPage)).toBe(true);
    await shot(benPage, '04-ben-ended-es');
    expect((await api().get(`/api/conversations/${anaBen}/`, { token: ben.token })).status).toBe(404);

    // A message of Ana's that crossed the block reaches Ben after it (its push raced match:removed):
    // on another screen, no toast of it, and no chat comes back.
    await benPage.getByRole('link', { name: es['app.nav.home'] }).click();
    await benPage.waitForURL(/\/app\/home\/?$/);
    app.server.app.io.in(`user:${ben.id}`).emit('message:new', {
      conversation_id: anaBen,
      message: { id: 2_000_000, sender: ana.id, content: 'Sent as you blocked', time: new Date().toISOString(), client_id: null },
      previous_id: null,
    });
    await socketCaughtUp(benPage, app.server, ben.id);
    expect(await benPage.getByText('Sent as you blocked').count()).toBe(0);
    expect(await stillNoReload(benPage)).toBe(true);
  });

  it('Ben finds the chat Ana ended under his ended chats, in Spanish, with Report', async () => {
    const page = benTab.page;
    await page.goto(`${app.server.url}/app/settings/`);
    await page.getByRole('heading', { name: es['ended.title'] }).waitFor();
    await page.getByRole('link', { name: es['settings.ended.open'] }).click();
    await page.waitForURL('**/app/settings/ended/');
    const row = page.locator('.person-row', { hasText: 'Ana' });
    await row.waitFor();
    expect(await row.locator('.person-meta').textContent()).toMatch(/^Terminó el /);
    await shot(page, '04b-ben-ended-chats-es');

    await row.getByRole('button', { name: 'Denunciar a Ana' }).click();
    const dialog = page.getByRole('dialog', { name: 'Denunciar a Ana' });
    await dialog.getByText(es['safety.report.blocksEnded'].replace('{name}', 'Ana'), { exact: false }).waitFor();
    await shot(page, '04c-ben-report-ended-es');
    await dialog.getByRole('button', { name: es['safety.cancel'] }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('Ana reports Carl with a reason and details: sent, and Carl is blocked', async () => {
    const { page } = anaTab;
    await carlTab.page.goto(`${app.server.url}/app/matches/`);
    await carlTab.page.getByRole('link', { name: /Ana/ }).first().waitFor();

    await page.getByRole('link', { name: /Carl/ }).first().click();
    await page.locator('.message', { hasText: 'Answer me or else.' }).waitFor();
    await page.getByRole('button', { name: en['safety.menu'] }).click();
    await page.getByRole('menuitem', { name: en['safety.report'] }).click();
    const dialog = page.getByRole('dialog', { name: 'Report Carl' });
    await dialog.waitFor();
    expect(await dialog.getByRole('radio').count()).toBe(7);
    // Sending without a reason says what is missing, and sends nothing.
    await dialog.getByRole('button', { name: en['safety.report.send'] }).click();
    await dialog.getByRole('alert').getByText(en['safety.report.pickReason']).waitFor();
    await dialog.getByRole('radio', { name: en['safety.reason.harassment'] }).check();
    await dialog.getByRole('textbox').fill('He keeps threatening me.');
    await shot(page, '05-report-form');
    await dialog.getByRole('button', { name: en['safety.report.send'] }).click();

    await page.waitForURL('**/app/matches/');
    await page.getByText('Report sent. Carl is blocked.').waitFor();
    expect(await page.getByRole('link', { name: /Carl/ }).count()).toBe(0);
    // Carl's list loses the conversation too, live; he is not told why.
    await expect.poll(() => carlTab.page.getByRole('link', { name: /Ana/ }).count()).toBe(0);
  });

  it('someone who is not a moderator finds no moderation page and no link to it', async () => {
    const { page } = anaTab;
    await page.goto(`${app.server.url}/app/moderation/`);
    await page.waitForURL('**/app/home/');
    await page.getByRole('button', { name: /Account menu/ }).click();
    expect(await page.getByRole('menuitem').allTextContents()).toEqual([en['app.settings'], en['subscribe.current.title'], en['blocked.title'], en['app.logout']]);
    await page.keyboard.press('Escape');
  });

  it('a moderator opens the report from the queue and bans Carl; Carl is signed out', async () => {
    const { page } = modTab;
    await carlTab.page.goto(`${app.server.url}/app/home/`);
    await carlTab.page.locator('.top-bar').waitFor();

    await page.goto(`${app.server.url}/app/home/`);
    await page.getByRole('button', { name: /Account menu/ }).click();
    await shot(page, '06a-account-menu');
    await page.getByRole('menuitem', { name: en['app.moderation'] }).click();
    await page.waitForURL('**/app/moderation/');
    const row = page.getByRole('link', { name: /Carl/ });
    await row.waitFor();
    const rowText = await row.textContent();
    expect(rowText).toContain(en['safety.reason.harassment']);
    expect(rowText).toContain(format(en['moderation.count'], { count: 1 }));
    await shot(page, '06b-moderation-queue');
    // On a laptop, the queue takes its width, not a phone's column.
    await page.setViewportSize(LAPTOP);
    try {
      expect((await page.locator('.report-list').boundingBox())!.width).toBeGreaterThan(900);
      await shot(page, '06c-moderation-queue-laptop');
    } finally {
      await page.setViewportSize(PHONE);
    }

    await row.click();
    await page.getByRole('heading', { name: en['safety.reason.harassment'] }).waitFor();
    await page.getByText('He keeps threatening me.').waitFor();
    const transcript = page.getByRole('list', { name: en['moderation.transcript'] });
    await transcript.getByText('Answer me or else.').waitFor();
    expect(await transcript.locator('.transcript-line.is-reported').textContent()).toContain(en['moderation.reported']);
    expect(await transcript.locator('.transcript-line:not(.is-reported)').textContent()).toContain(en['moderation.reporter']);
    // The photo copy came through the API with the token, shown from a blob.
    const photo = page.getByRole('img', { name: en['moderation.photo'].replace('{n}', '1') });
    await photo.waitFor();
    expect(await photo.getAttribute('src')).toMatch(/^blob:/);
    await expect.poll(() => photo.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBeGreaterThan(0);
    // A third of the column is too small to judge a fake or explicit photo: a tap shows it the profile's
    // whole width, another puts it back.
    const profileBox = (await page.locator('.snapshot-profile').boundingBox())!;
    const thumbnail = (await photo.boundingBox())!;
    expect(thumbnail.width).toBeLessThan(profileBox.width / 2);
    await photo.click();
    await expect.poll(async () => (await photo.boundingBox())!.width).toBeGreaterThan(profileBox.width * 0.8);
    await shot(page, '07a-moderation-photo-large');
    await photo.click();
    await expect.poll(async () => (await photo.boundingBox())!.width).toBe(thumbnail.width);
    await page.getByText('Here for trouble.').waitFor();
    await shot(page, '07-moderation-report');
    await shot(page, '07b-moderation-report-full', { fullPage: true });
    // On a laptop, the evidence beside the case and the decision: the chat is read with Ban in sight.
    await page.setViewportSize(LAPTOP);
    try {
      const details = (await page.getByText('He keeps threatening me.').boundingBox())!;
      const said = (await transcript.getByText('Answer me or else.').boundingBox())!;
      const ban = (await page.getByRole('button', { name: en['moderation.ban'] }).boundingBox())!;
      const nav = (await page.locator('.bottom-nav').boundingBox())!;
      expect(said.x).toBeGreaterThan(details.x + details.width);
      expect(ban.y + ban.height).toBeLessThanOrEqual(nav.y);
      await shot(page, '07c-moderation-report-laptop');
    } finally {
      await page.setViewportSize(PHONE);
    }

    await page.getByLabel(en['moderation.note']).fill('Threats in chat.');
    await page.getByRole('button', { name: en['moderation.ban'] }).click();
    const confirm = page.getByRole('dialog', { name: 'Ban Carl?' });
    await confirm.getByText(en['moderation.banText']).waitFor();
    await shot(page, '08-ban-confirm');
    await confirm.getByRole('button', { name: en['moderation.ban'] }).click();

    await page.waitForURL('**/app/moderation/');
    await page.getByText('Carl is banned.').waitFor();
    await page.getByText(en['moderation.emptyOpen']).waitFor();
    await shot(page, '09-queue-after-ban');

    // Carl's open tab: told of the ban before its socket drops, signed out, and told why.
    // The app goes to /login/ twice (its router, then a full load that drops every store): a read
    // that meets the second navigation is asked again.
    await carlTab.page.waitForURL(`${app.server.url}/login/?suspended`, { waitUntil: 'commit' });
    await expect.poll(() => carlTab.page.evaluate(() => localStorage.getItem('auth_token')).catch(() => 'navigating')).toBeNull();
    await carlTab.page.getByRole('heading', { name: en['login.title'] }).waitFor();
    await carlTab.page.getByRole('status').getByText(en['login.suspended']).waitFor();
    await shot(carlTab.page, '10-carl-signed-out');

    await page.getByRole('button', { name: en['moderation.resolved'] }).click();
    await page.getByRole('link', { name: /Carl/ }).click();
    const resolution = page.locator('.resolution');
    await resolution.getByText(en['moderation.resolution.ban']).waitFor();
    expect(await resolution.textContent()).toContain('Threats in chat.');
    // Who decided it, for the other moderators.
    expect(await resolution.locator('p').first().textContent()).toMatch(/^Resolution: Banned · Resolved .+ by Mod$/);
  });

  it('Ana sees the people she blocked and unblocks Ben after a confirm step', async () => {
    const { page } = anaTab;
    await page.getByRole('button', { name: /Account menu/ }).click();
    await page.getByRole('menuitem', { name: en['blocked.title'] }).click();
    await page.waitForURL('**/app/settings/blocked/');
    const list = page.locator('.person-list');
    await list.getByText('Ben').waitFor();
    // Newest first: Carl (reported, so blocked) after Ben.
    expect(await list.locator('.person-name').allTextContents()).toEqual(['Carl', 'Ben']);
    await shot(page, '11-blocked-list');

    await page.getByRole('button', { name: 'Unblock Ben' }).click();
    const dialog = page.getByRole('dialog', { name: 'Unblock Ben?' });
    await dialog.getByText(en['blocked.unblockText']).waitFor();
    await dialog.getByRole('button', { name: en['blocked.unblock'] }).click();
    await page.getByText('Ben is unblocked.').waitFor();
    await dialog.waitFor({ state: 'detached' });
    expect(await list.locator('.person-name').allTextContents()).toEqual(['Carl']);
    const blocks = await api().get('/api/users/me/blocks/', { token: ana.token });
    expect(blocks.body.results.map((person: { name: string }) => person.name)).toEqual(['Carl']);
  });

  it("blocks from someone's profile, landing on home; Escape and Back close the confirm step", async () => {
    const { page } = anaTab;
    await page.goto(`${app.server.url}/app/matches/`);
    await page.goto(`${app.server.url}/app/profiles/${dana.id}`);
    await page.getByRole('heading', { name: /Dana/ }).waitFor();
    await page.getByRole('button', { name: en['safety.menu'] }).click();
    expect(await page.getByRole('menuitem').allTextContents()).toEqual([en['safety.report'], en['safety.block']]);
    await page.getByRole('menuitem', { name: en['safety.block'] }).click();
    const dialog = page.getByRole('dialog', { name: 'Block Dana?' });
    await dialog.getByText(en['safety.block.textProfile']).waitFor();
    await shot(page, '12-profile-block');
    // Escape closes without blocking.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect((await api().get(`/api/users/${dana.id}/profile/`, { token: ana.token })).status).toBe(200);
    // So does the back gesture, which leaves her on the profile.
    await page.getByRole('button', { name: en['safety.menu'] }).click();
    await page.getByRole('menuitem', { name: en['safety.block'] }).click();
    await dialog.waitFor();
    await page.goBack();
    await dialog.waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe(`/app/profiles/${dana.id}`);
    await page.getByRole('heading', { name: /Dana/ }).waitFor();
    // A reload with the sheet open: the sheet is gone with the page, and so is its step in the
    // history. Back goes to where she was before the profile, not to the profile again.
    await page.getByRole('button', { name: en['safety.menu'] }).click();
    await page.getByRole('menuitem', { name: en['safety.block'] }).click();
    await dialog.waitFor();
    await expect.poll(() => overlayOnTop(page)).toBe(true);
    await page.reload();
    await page.getByRole('heading', { name: /Dana/ }).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => overlayOnTop(page)).toBe(false);
    await page.goBack();
    await page.waitForURL('**/app/matches/');
    await page.goForward();
    await page.getByRole('heading', { name: /Dana/ }).waitFor();

    await page.getByRole('button', { name: en['safety.menu'] }).click();
    await page.getByRole('menuitem', { name: en['safety.block'] }).click();
    await page.getByRole('dialog').getByRole('button', { name: en['safety.block.confirm'] }).click();
    await page.waitForURL('**/app/home/');
    await page.getByText('You blocked Dana.').waitFor();
    expect((await api().get(`/api/users/${dana.id}/profile/`, { token: ana.token })).status).toBe(404);
    // Home took the profile's place: Back goes to where she was before it, not to the profile or its sheet.
    await page.goBack();
    await page.waitForURL('**/app/matches/');
  });

  it('opens Report and Block in a chat with no network and no service worker, saying in the sheet that it is offline', async () => {
    const eva = await makeCompletedUser(app.server, { name: 'Eva' }, { firstName: 'Eva' });
    const fer = await makeCompletedUser(app.server, { name: 'Fer' }, { firstName: 'Fer' });
    const chat = await match(app.server, fer, eva);
    await say(fer, chat, 'See you at the bar?');
    // openPhone's phone has no service worker: what the app has not fetched, it cannot open offline.
    const { context, page } = await openPhone(app.browser, { token: eva.token, language: 'en' });
    await page.goto(`${app.server.url}/app/chat/${chat}`);
    await page.locator('.message', { hasText: 'See you at the bar?' }).waitFor();
    // The dialog's script, fetched as the chat showed (it was fetched only when first tapped).
    const fetched = () => page.evaluate(() => performance.getEntriesByType('resource').some((entry) => /\/assets\/app-more-[\w-]+\.js$/.test(entry.name)));
    await expect.poll(fetched).toBe(true);
    await context.setOffline(true);

    await page.getByRole('button', { name: en['safety.menu'] }).click();
    await page.getByRole('menuitem', { name: en['safety.report'] }).click();
    const report = page.getByRole('dialog', { name: 'Report Fer' });
    await report.getByRole('radio').first().waitFor();
    await page.keyboard.press('Escape');
    await report.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: en['safety.menu'] }).click();
    await page.getByRole('menuitem', { name: en['safety.block'] }).click();
    const block = page.getByRole('dialog', { name: 'Block Fer?' });
    await block.getByRole('button', { name: en['safety.block.confirm'] }).click();
    // Said in the sheet, which stays for another try; the chat is still behind it.
    await block.getByRole('alert').getByText(en['error.network']).waitFor();
    await shot(page, '14-block-offline');
    expect(await page.locator('.message', { hasText: 'See you at the bar?' }).isVisible()).toBe(true);
    await context.setOffline(false);
    await block.getByRole('button', { name: en['safety.block.confirm'] }).click();
    await page.waitForURL('**/app/matches/');
    await page.getByText('You blocked Fer.').waitFor();
    await context.close();
  });

  it('out of reports for the day, "Block … now" holds a short name as a word and blocks, sending no report with it', async () => {
    const gil = await makeCompletedUser(app.server, { name: 'Gil' }, { firstName: 'Gil' });
    const others = await Promise.all(Array.from({ length: 11 }, () => makeCompletedUser(app.server, { name: 'Hal' })));
    for (const other of others.slice(0, 10)) {
      expect((await api().post('/api/reports/', { token: gil.token, json: { user_id: other.id, reason: 'spam' } })).status).toBe(201);
    }
    const hal = others[10]!;
    const { context, page } = await openPhone(app.browser, { token: gil.token, language: 'es' });
    await page.goto(`${app.server.url}/app/profiles/${hal.id}`);
    await page.getByRole('button', { name: es['safety.menu'] }).click();
    await page.getByRole('menuitem', { name: es['safety.report'] }).click();
    const dialog = page.getByRole('dialog', { name: 'Denunciar a Hal' });
    await dialog.getByRole('radio', { name: es['safety.reason.spam'] }).check();
    await dialog.getByRole('button', { name: es['safety.report.send'] }).click();
    await dialog.getByRole('alert').getByText(es['safety.report.throttled']).waitFor();
    // A short name sits in the sentence as any word does: its box was 3em wide, "Bloquear a  Hal  ahora".
    const blockNow = dialog.getByRole('button', { name: 'Bloquear a Hal ahora' });
    const room = await blockNow.locator('bdi').evaluate((bdi) => {
      const text = document.createRange();
      text.selectNodeContents(bdi);
      return bdi.getBoundingClientRect().width - text.getBoundingClientRect().width;
    });
    expect(room).toBeLessThan(1);

    // A real tap, after whose handler the page's microtasks run before the button's own default action.
    const reportsSent: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/reports/') reportsSent.push(request.url());
    });
    // With no network the block fails and says so, and the button still blocks for the next try: it
    // turned back into Send report, which the limit refuses.
    await context.setOffline(true);
    await blockNow.click();
    await dialog.getByRole('alert').getByText(es['error.network']).waitFor();
    expect(await dialog.getByRole('button', { name: es['safety.report.send'] }).count()).toBe(0);
    await context.setOffline(false);
    await blockNow.click();
    await page.getByText('Has bloqueado a Hal.').waitFor();
    expect((await api().get(`/api/users/${hal.id}/profile/`, { token: gil.token })).status).toBe(404);
    expect(reportsSent).toEqual([]);
    await context.close();
  });

  /** A 320×568 phone in Spanish, signed in as `who`, on which a toast's countdown waits an hour once a page shows. */
  async function smallPhoneKeepingToasts(who: TestUser) {
    const tab = await openPhone(app.browser, { token: who.token, language: 'es' });
    await tab.page.setViewportSize({ width: 320, height: 568 });
    await tab.context.addInitScript((ms) => {
      const native = window.setTimeout;
      window.setTimeout = ((handler: TimerHandler, delay?: number, ...rest: unknown[]) => native(handler, delay === ms ? 3_600_000 : delay, ...rest)) as typeof window.setTimeout;
    }, TOAST_AUTO_CLOSE_MS);
    return tab;
  }
  /** What of `selector` in the page a tap at its middle would miss (by its text): a toast is over it. */
  const covered = (page: Page, selector: string) =>
    page.evaluate(
      (what) =>
        [...document.querySelectorAll(what)]
          .filter((node) => {
            const box = node.getBoundingClientRect();
            return !node.contains(document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2));
          })
          .map((node) => node.textContent),
      selector,
    );

  it('puts away the toast still up when a chat menu opens on a 320 px phone: its first item shows', async () => {
    const ines = await makeCompletedUser(app.server, { name: 'Inés' }, { firstName: 'Inés' });
    const jon = await makeCompletedUser(app.server, { name: 'Jon' }, { firstName: 'Jon' });
    const kai = await makeCompletedUser(app.server, { name: 'Kai' }, { firstName: 'Kai' });
    const withJon = await match(app.server, jon, ines);
    await match(app.server, kai, ines);
    await say(jon, withJon, 'Te espero fuera.');
    const { context, page } = await smallPhoneKeepingToasts(ines);
    await page.goto(`${app.server.url}/app/chat/${withJon}`);
    await page.locator('.message', { hasText: 'Te espero fuera.' }).waitFor();
    await page.getByRole('button', { name: es['safety.menu'] }).click();
    await page.getByRole('menuitem', { name: es['safety.report'], exact: true }).click();
    const first = page.getByRole('dialog', { name: format(es['safety.report.title'], { name: 'Jon' }) });
    await first.getByRole('radio', { name: es['safety.reason.spam'] }).check();
    await first.getByRole('button', { name: es['safety.report.send'] }).click();
    await page.waitForURL('**/app/matches/');
    const sent = page.locator('.toast', { hasText: es['safety.report.sent'] });
    await sent.waitFor();

    // Straight on to Kai's chat and its menu, the toast still up: it was over the menu's Report.
    await page.getByRole('link', { name: /Kai/ }).first().click();
    await page.locator('.chat-header').waitFor();
    expect(await sent.count()).toBe(1);
    await page.getByRole('button', { name: es['safety.menu'] }).click();
    await page.getByRole('menuitem', { name: es['safety.report'], exact: true }).waitFor();
    expect(await covered(page, '[role="menuitem"]')).toEqual([]);
    expect(await sent.count()).toBe(0);
    await page.getByRole('menuitem', { name: es['safety.report'], exact: true }).click();
    await page.getByRole('dialog', { name: format(es['safety.report.title'], { name: 'Kai' }) }).waitFor();
    await context.close();
  });

  it('puts away the toast still up when a tall sheet opens on a 320 px phone: its title and reasons show', async () => {
    const lia = await makeCompletedUser(app.server, { name: 'Lía' }, { firstName: 'Lía' });
    const people = [await makeCompletedUser(app.server, { name: 'Mo' }, { firstName: 'Mo' }), await makeCompletedUser(app.server, { name: 'Noa' }, { firstName: 'Noa' })];
    for (const person of people) expect((await api().post(`/api/users/${person.id}/block/`, { token: lia.token })).status).toBeLessThan(300);
    const { context, page } = await smallPhoneKeepingToasts(lia);
    await page.goto(`${app.server.url}/app/settings/blocked/`);
    // From her blocked list: Mo's report, then at once Noa's, its "Report sent" still up.
    await page.getByRole('button', { name: format(es['safety.report.title'], { name: 'Mo' }) }).click();
    const first = page.getByRole('dialog', { name: format(es['safety.report.title'], { name: 'Mo' }) });
    await first.getByRole('radio', { name: es['safety.reason.spam'] }).check();
    await first.getByRole('button', { name: es['safety.report.send'] }).click();
    const sent = page.locator('.toast', { hasText: es['safety.report.sent'] });
    await sent.waitFor();
    await first.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: format(es['safety.report.title'], { name: 'Noa' }) }).click();
    await page.getByRole('dialog', { name: format(es['safety.report.title'], { name: 'Noa' }) }).waitFor();
    await entryAnimationsDone(page);
    // It was over two of the reasons (the title, the page scrolled otherwise).
    expect(await covered(page, '.sheet h2, .sheet label')).toEqual([]);
    expect(await sent.count()).toBe(0);
    await keepShot(page, 'safety-15-sheet-after-toast-320');
    await context.close();
  });

  it('says "too many tabs" when the socket is refused for that, and goes live once one closes', async () => {
    const { page } = anaTab;
    const sockets = async () => (await app.server.app.io.in(`user:${ana.id}`).fetchSockets()).length;
    // Ana's tab lets go of its socket; ten other "tabs" take every place.
    await page.goto('about:blank');
    await expect.poll(sockets).toBe(0);
    const others = await Promise.all(Array.from({ length: MAX_SOCKETS_PER_USER }, () => connect(app.server.url, ana.token)));
    try {
      await page.goto(`${app.server.url}/app/matches/`);
      await page.getByRole('status').getByText(en['app.tooManyTabs']).waitFor();
      await shot(page, '13-too-many-tabs');
      // One closes: the tab's next try (a second or two later) gets in, and the banner goes.
      others.pop()!.close();
      await page.getByText(en['app.tooManyTabs']).waitFor({ state: 'detached' });
      expect(await sockets()).toBe(MAX_SOCKETS_PER_USER);
    } finally {
      for (const socket of others) socket.close();
    }
  });
});
