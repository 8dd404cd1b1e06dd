/**
 * Events in Debian's Chromium on phone-sized screens, against the real server: a newcomer opens
 * the host screen's QR link, registers, logs in, completes the profile and lands in the event's deck
 * without scanning again, while the organizer's host screen counts them in live. Screenshots land in
 * tests/e2e/artifacts/events-*.png.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { format } from '../../shared/i18n/format';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';
import { checkIn, makeEvent, setEventTimes, tokenFor } from '../helpers/events';
import { makeCompletedUser, makeUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { imageBytes } from '../helpers/images';
import { entryAnimationsDone, hasChromium, keepShot, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

describe.skipIf(!ready)('an event end to end (Chromium, 390×844)', { timeout: 120_000 }, () => {
  // Enough events for one organizer to push the one at the door off the first page of their list; the
  // passes a few dozen, for the crowd's refused scan to use them up in as many steps (2,000 a minute in
  // production), and for an hour: a window that starts at the file's first scan and ends while a later
  // scan is under way lets that scan in (the passes the crowd used up are the test's to give back).
  const app = appInChromium({
    limits: { 'event:create': { max: 100, windowMs: 60_000 }, 'event:pass:ip': { max: 30, windowMs: 3_600_000 } },
  });
  let host: { context: BrowserContext; page: Page };
  let guest: { context: BrowserContext; page: Page };
  let organizer: TestUser;
  let event: { id: number; code: string; name: string };
  const shot = (page: Page, name: string) => keepShot(page, `events-${name}`);
  const email = `guest-${Date.now()}@example.com`;
  const password = 'Dance-Floor-2026!';

  beforeAll(async () => {
    organizer = await makeCompletedUser(app.server, { name: 'Olga' }, { firstName: 'Olga' });
    event = await makeEvent(app.server, organizer, { name: 'Terrace Night', venue: 'Sala Apolo, upstairs', join_mode: 'qr' });
    const tomorrow = Date.now() + 24 * 3_600_000;
    for (let i = 0; i < 50; i++) {
      const startsAt = tomorrow + i * 3_600_000;
      await makeEvent(app.server, organizer, {
        name: `Later night ${i + 1}`,
        starts_at: new Date(startsAt).toISOString(),
        ends_at: new Date(startsAt + 3_600_000).toISOString(),
      });
    }
    // Two people already inside, who fit the newcomer (a woman looking for men).
    for (const name of ['Marco', 'Leo']) {
      const man = await makeCompletedUser(app.server, { name, gender: 'male', genders_to_match: ['female'] }, { firstName: name });
      await checkIn(app.server, man, event.code, { token: await tokenFor(app.server, event.id) });
    }
    host = await openPhone(app.browser, { token: organizer.token, language: 'en' });
    guest = await openPhone(app.browser);
    for (const { page } of [host, guest]) page.on('pageerror', (error) => console.error('page error:', error));
  }, 180_000);

  it('shows the organizer the rotating QR and the live count on the host screen', async () => {
    const { page } = host;
    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    await page.getByRole('heading', { level: 1, name: 'Terrace Night' }).waitFor();
    const qr = page.locator('.host-qr img');
    await qr.waitFor();
    // A QR event's code lets no one in when typed: the door does not offer it.
    expect(await page.locator('.host-code').count()).toBe(0);
    expect(await page.getByText(en['host.typeCode']).count()).toBe(0);
    // Said as what it is, not as the link with its rotating token that it holds.
    expect(await qr.getAttribute('alt')).toBe('QR code to join Terrace Night');
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;charset=utf-8,%3Csvg/);
    await expect.poll(() => page.locator('.host-live-number').textContent()).toBe('2');
    await page.locator('.event-chart canvas').waitFor();
    await shot(page, '01-host-screen');
    await page.locator('.host-stats').scrollIntoViewIfNeeded();
    await shot(page, '02-host-stats');
  });

  it('takes a newcomer from the QR link through sign-up and profile into the event\'s deck, without scanning again', async () => {
    const { page } = guest;
    const qr = await client(app.server.url).get(`/api/events/${event.id}/qr/`, { token: organizer.token });
    await page.goto(qr.body.url);
    // The link's first act: the token becomes a pass, and leaves the address bar.
    await page.getByRole('heading', { level: 1, name: 'Terrace Night' }).waitFor();
    await page.getByText(es['eventPage.passKept']).waitFor();
    await page.waitForURL(`**/e/${event.code}`);
    expect(await page.evaluate(() => localStorage.getItem('pending_event_join'))).toContain('"pass"');
    await page.getByText(format(es['events.count'], { count: 2 })).waitFor();
    await shot(page, '03-event-page-es');

    await page.getByRole('link', { name: es['eventPage.signup'] }).click();
    await page.waitForURL('**/register/');
    await page.getByLabel(es['register.firstName']).fill('Lucía');
    await page.getByLabel(es['register.lastName']).fill('García');
    await page.getByLabel(es['auth.email']).fill(email);
    await page.getByLabel(es['auth.password'], { exact: true }).fill(password);
    await page.getByLabel(es['register.password2']).fill(password);
    await page.getByRole('button', { name: es['register.submit'] }).click();
    await page.waitForURL('**/login/');
    await logIn(page, { email, password });
    await page.waitForURL('**/app/profile/');
    // Still holding the pass: login cleared the rest of local storage, not this. The page says the scan still counts.
    expect(await page.evaluate(() => localStorage.getItem('pending_event_join'))).toContain('"pass"');
    await page.getByText(format(es['profile.completeToJoin'], { event: 'Terrace Night' })).waitFor();
    // So does the app opened in another tab, as the e-mail's confirmation link opens it.
    const fromMail = await guest.context.newPage();
    await fromMail.goto(`${app.server.url}/app/profile/`);
    await fromMail.getByText(format(es['profile.completeToJoin'], { event: 'Terrace Night' })).waitFor();
    await fromMail.close();

    await fillFirstProfile(page, { born: 1995, photoColor: '#0ea5e9' });
    await page.getByRole('button', { name: es['profile.save'] }).click();

    // Checked in with the pass, straight into the event's deck.
    await page.waitForURL('**/app/home/');
    const bar = page.getByRole('region', { name: 'Terrace Night' });
    await bar.waitFor();
    await bar.getByText(format(es['deck.event.here'], { count: 3 })).waitFor();
    const card = page.getByTestId('swipe-card');
    await card.waitFor();
    await expect.poll(() => card.locator('h2').textContent()).toMatch(/Marco|Leo/);
    expect(await page.evaluate(() => localStorage.getItem('pending_event_join'))).toBeNull();
    await shot(page, '04-event-deck-es');

    const login = await client(app.server.url).post('/api/auth/', { json: { username: email, password } });
    const current = await client(app.server.url).get('/api/events/current/', { token: login.body.token });
    expect(current.body.event).toMatchObject({ id: event.id, attendee_count: 3 });

    // Both passed on: the room's deck is empty for now, says nobody else here fits her for now, and
    // that the next arrivals will show by themselves.
    for (let passed = 0; passed < 2; passed++) {
      const name = await card.locator('h2').textContent();
      await page.keyboard.press('ArrowLeft');
      await expect.poll(async () => (await card.count()) === 0 || (await card.locator('h2').textContent()) !== name).toBe(true);
    }
    await page.getByText(es['deck.emptyAtEventNoFit']).waitFor();
  });

  it('keeps a scan the network dropped, to try again without walking back to the door', async () => {
    const nina = await makeCompletedUser(app.server, { name: 'Nina', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Nina' });
    const { context, page } = await openPhone(app.browser, { token: nina.token, language: 'en' });
    try {
      let passes = 0;
      await page.route('**/api/events/*/pass/', (route) => (++passes === 1 ? route.abort('internetdisconnected') : route.continue()));
      const qr = await client(app.server.url).get(`/api/events/${event.id}/qr/`, { token: organizer.token });
      await page.goto(qr.body.url);
      const retry = page.getByRole('button', { name: en['eventPage.retry'] });
      await retry.waitFor();
      expect(page.url()).toContain('?t=');
      await shot(page, '03b-scan-dropped');
      // Signed in, the scan was the whole gesture: once the pass comes, the check-in follows.
      await retry.click();
      await page.waitForURL('**/app/home/');
      await page.getByRole('region', { name: 'Terrace Night' }).waitFor();
      expect(passes).toBe(2);
    } finally {
      await context.close();
    }
    // Out again, so that the counts the next tests read are the newcomer's.
    expect((await client(app.server.url).post('/api/events/leave/', { token: nina.token })).status).toBe(204);
  });

  it('keeps a scan refused for now by a crowd on the same Wi-Fi, to try again without walking back to the door', async () => {
    const ines = await makeCompletedUser(app.server, { name: 'Ines', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Ines' });
    const { context, page } = await openPhone(app.browser, { token: ines.token, language: 'en' });
    // Everyone at the doors behind the venue's one address has used its passes for this minute.
    const { limits } = app.server.app;
    const venue = `ip:${new URL(app.server.url).hostname}`;
    let used = 0;
    for (;;) {
      const refused = await limits.consume('event:pass:ip', venue).then(() => false, () => true);
      if (refused) break;
      used++;
    }
    expect(used).toBeLessThanOrEqual(30);
    try {
      const qr = await client(app.server.url).get(`/api/events/${event.id}/qr/`, { token: organizer.token });
      await page.goto(qr.body.url);
      const retry = page.getByRole('button', { name: en['eventPage.retry'] });
      await retry.waitFor();
      expect(page.url()).toContain('?t=');
      // The crowd thins out: the same scan gets in.
      await limits.reset('event:pass:ip', venue);
      await retry.click();
      await page.waitForURL('**/app/home/');
      await page.getByRole('region', { name: 'Terrace Night' }).waitFor();
    } finally {
      await limits.reset('event:pass:ip', venue);
      await context.close();
    }
    expect((await client(app.server.url).post('/api/events/leave/', { token: ines.token })).status).toBe(204);
  });

  it('counted the newcomer in live on the host screen, with no reload', async () => {
    const { page } = host;
    await expect.poll(() => page.locator('.host-live-number').textContent(), { timeout: 10_000 }).toBe('3');
    await page.locator('.host-live').scrollIntoViewIfNeeded();
    await shot(page, '05-host-count-live');
  });

  it('leaves from the deck after a confirm step and offers a way back in; the host sees the count drop', async () => {
    const { page } = guest;
    const leave = () => page.getByRole('region', { name: 'Terrace Night' }).getByRole('button', { name: es['deck.event.leave'] }).click();
    // A QR event: the sheet says that coming back takes a scan at the door. "Stay" changes nothing.
    await leave();
    const sheet = page.getByRole('dialog', { name: format(es['deck.event.leaveTitle'], { name: 'Terrace Night' }) });
    await sheet.getByText(es['deck.event.leaveQr']).waitFor();
    await entryAnimationsDone(page);
    await shot(page, '06a-leave-confirm-es');
    await sheet.getByRole('button', { name: es['deck.event.stay'] }).click();
    await sheet.waitFor({ state: 'detached' });
    expect(await page.getByRole('region', { name: 'Terrace Night' }).isVisible()).toBe(true);
    await leave();
    await sheet.getByRole('button', { name: es['deck.event.leaveConfirm'], exact: true }).click();
    await page.getByRole('link', { name: new RegExp(es['deck.event.join']) }).waitFor();
    await shot(page, '06-deck-after-leaving-es');
    await expect.poll(() => host.page.locator('.host-live-number').textContent(), { timeout: 10_000 }).toBe('2');

    await page.getByRole('link', { name: new RegExp(es['deck.event.join']) }).click();
    await page.waitForURL('**/app/events/');
    // A code that names no event says so, as the event page does.
    await page.getByLabel(es['events.join.label']).fill('ZZZZZZ');
    await page.getByRole('button', { name: es['events.join.submit'] }).click();
    await page.getByText(es['eventPage.notFound']).waitFor();
    // Pasted from a chat, with a space and a dash: the field keeps the code's six characters.
    const codeField = page.getByLabel(es['events.join.label']);
    await codeField.fill(` ${event.code.slice(0, 3).toLowerCase()}-${event.code.slice(3).toLowerCase()}`);
    expect(await codeField.inputValue()).toBe(event.code);
    // What was said of the code before goes with it.
    expect(await page.getByText(es['eventPage.notFound']).count()).toBe(0);
    await page.getByRole('button', { name: es['events.join.submit'] }).click();
    // A QR event: the code alone is not enough, said before anything else (a profile to write, a check-in).
    await page.getByText(es['eventPage.qrOnly']).waitFor();
    await shot(page, '07-events-page-es');
  });

  it("lists an organizer's events page by page, newest first, down to the one at the door", async () => {
    const { page } = host;
    await page.goto(`${app.server.url}/app/events/`);
    const listed = page.locator('.my-events .my-event-name');
    await listed.first().waitFor();
    expect(await listed.count()).toBe(50);
    expect(await listed.first().textContent()).toBe('Later night 50');
    expect(await listed.allTextContents()).not.toContain('Terrace Night');
    await page.getByRole('button', { name: en['events.mine.more'] }).scrollIntoViewIfNeeded();
    await shot(page, '09-my-events-more');
    await page.getByRole('button', { name: en['events.mine.more'] }).click();
    await page.locator('.my-events .my-event-name', { hasText: 'Terrace Night' }).waitFor();
    expect(await listed.count()).toBe(51);
    await page.getByRole('button', { name: en['events.mine.more'] }).waitFor({ state: 'detached' });
    await page.locator('.my-event', { hasText: 'Terrace Night' }).click();
    await page.waitForURL(new RegExp(`/app/events/${event.id}/host/$`));
    await page.getByRole('heading', { level: 1, name: 'Terrace Night' }).waitFor();
  });

  it('lets an organizer create an event on the phone and lands on its host screen', async () => {
    const { page } = host;
    await page.goto(`${app.server.url}/app/events/new/`);
    // Sent with no name from the foot of the form: the app says so under the field, in its own words
    // and language (not a bubble of the browser's), with the field in view below the top bar and focused.
    const name = page.getByLabel(en['events.new.name']);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.getByRole('button', { name: en['events.new.submit'] }).click();
    await page.locator('#name-error').getByText(SERVER_MESSAGES.blank.en).waitFor();
    expect(await name.evaluate((input) => input === document.activeElement)).toBe(true);
    expect(await name.evaluate((input) => input.getBoundingClientRect().top >= document.querySelector('.top-bar')!.getBoundingClientRect().bottom)).toBe(true);
    await name.fill('Garden Brunch');
    await page.getByLabel(en['events.new.venue']).fill('The old greenhouse');
    await page.getByText(en['events.new.joinMode.code']).click();
    await shot(page, '08-new-event-en');
    await page.getByRole('button', { name: en['events.new.submit'] }).click();
    await page.waitForURL(/\/app\/events\/\d+\/host\/$/);
    await page.getByRole('heading', { level: 1, name: 'Garden Brunch' }).waitFor();
    await page.locator('.host-qr img').waitFor();
    const mine = await client(app.server.url).get('/api/events/mine/', { token: organizer.token });
    expect(mine.body.results[0]).toMatchObject({ name: 'Garden Brunch', venue: 'The old greenhouse', join_mode: 'code' });
  });

  it('tells the organizer, with the day, until when the deck stays open after the end, then that it is closed', async () => {
    const { page } = host;
    const ended = await makeEvent(app.server, organizer, { name: 'Late Night' });
    const HOUR = 3_600_000;
    const endsAt = new Date(Date.now() - HOUR);
    await setEventTimes(app.server, ended.id, { startsAt: new Date(Date.now() - 5 * HOUR), endsAt });
    await page.goto(`${app.server.url}/app/events/${ended.id}/host/`);
    // As an event's times are said: "Fri, Dec 4, 8:00 PM", with the year once it is another year's.
    const deckUntil = new Date(endsAt.getTime() + 24 * HOUR);
    const year = deckUntil.getFullYear() === new Date().getFullYear() ? undefined : 'numeric';
    const until = `${new Intl.DateTimeFormat('en-US', { weekday: 'short', day: 'numeric', month: 'short', year }).format(deckUntil)}, ${new Intl.DateTimeFormat('en-US', { timeStyle: 'short' }).format(deckUntil)}`;
    await page.getByText(format(en['host.ended'], { time: until })).waitFor();
    await shot(page, '10-host-after-party');
    await setEventTimes(app.server, ended.id, { startsAt: new Date(Date.now() - 30 * HOUR), endsAt: new Date(Date.now() - 26 * HOUR) });
    await page.reload();
    await page.getByText(en['host.closed']).waitFor();
  });

  it('takes someone with an account from the QR link through login into the deck, with one deck in the history', async () => {
    const vera = await makeCompletedUser(app.server, { name: 'Vera', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Vera' });
    const { context, page } = await openPhone(app.browser);
    try {
      const qr = await client(app.server.url).get(`/api/events/${event.id}/qr/`, { token: organizer.token });
      await page.goto(qr.body.url);
      await page.getByText(es['eventPage.passKept']).waitFor();
      await page.getByRole('link', { name: es['eventPage.login'] }).click();
      await logIn(page, vera);
      await page.getByRole('region', { name: 'Terrace Night' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/app/home/');
      // Back leaves the deck at once: the check-in's way there took the place of the login's.
      await page.goBack();
      await expect.poll(() => new URL(page.url()).pathname).not.toBe('/app/home/');
      expect((await client(app.server.url).post('/api/events/leave/', { token: vera.token })).status).toBeLessThan(300);
    } finally {
      await context.close();
    }
  });

  it('keeps the scan when the network drops as the profile is saved, and checks in once it is back', async () => {
    const pia = await makeUser(app.server, { firstName: 'Pía' });
    const { context, page } = await openPhone(app.browser, { token: pia.token, language: 'es' });
    try {
      const qr = await client(app.server.url).get(`/api/events/${event.id}/qr/`, { token: organizer.token });
      await page.goto(qr.body.url);
      await page.waitForURL('**/app/profile/');
      await page.getByText(format(es['profile.completeToJoin'], { event: 'Terrace Night' })).waitFor();
      await fillFirstProfile(page, { born: 1996, photoColor: '#22c55e' });
      // The profile is saved; the check-in after it gets no answer.
      let checkIns = 0;
      await page.route('**/api/events/*/check-in/', (route) => (++checkIns === 1 ? route.abort('internetdisconnected') : route.continue()));
      await page.getByRole('button', { name: es['profile.save'] }).click();
      // The save's answer, then the check-in: two round trips, given the time the page's own waits get
      // (poll's default second is too short on two cores shared with Chromium and the rest of the suite).
      await expect.poll(() => checkIns, { timeout: 15_000 }).toBe(1);
      await expect.poll(() => page.evaluate(() => localStorage.getItem('pending_event_join')), { timeout: 15_000 }).toContain('"pass"');
      // The network comes back: the scan still counts, without walking back to the door.
      await context.setOffline(true);
      await context.setOffline(false);
      await page.getByRole('region', { name: 'Terrace Night' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/app/home/');
      expect(await page.evaluate(() => localStorage.getItem('pending_event_join'))).toBeNull();
      expect((await client(app.server.url).get('/api/events/current/', { token: pia.token })).body.event?.id).toBe(event.id);
      expect((await client(app.server.url).post('/api/events/leave/', { token: pia.token })).status).toBe(204);
    } finally {
      await context.close();
    }
  });

  it('shows no one outside the party while the check-in after the profile is on its way', async () => {
    // Someone in town who fits her, and is not at the party.
    await makeCompletedUser(app.server, { name: 'Tomás', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Tomás' });
    const eva = await makeUser(app.server, { firstName: 'Eva' });
    const { context, page } = await openPhone(app.browser, { token: eva.token, language: 'es' });
    try {
      const qr = await client(app.server.url).get(`/api/events/${event.id}/qr/`, { token: organizer.token });
      await page.goto(qr.body.url);
      await page.waitForURL('**/app/profile/');
      await fillFirstProfile(page, { born: 1997, photoColor: '#f97316' });
      // The venue's network is slow: the check-in is held until the test lets it go.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let asked = false;
      await page.route('**/api/events/*/check-in/', async (route) => {
        asked = true;
        await held;
        await route.continue();
      });
      const deckRead = page.waitForResponse('**/api/users/matching-profiles/**');
      await page.getByRole('button', { name: es['profile.save'] }).click();
      await page.waitForURL('**/app/home/');
      await expect.poll(() => asked).toBe(true);
      // The general deck has been read by now; its people are not shown to be swiped.
      await deckRead;
      await page.getByText(es['deck.loading']).waitFor();
      expect(await page.getByTestId('swipe-card').count()).toBe(0);
      release();
      await page.getByRole('region', { name: 'Terrace Night' }).waitFor();
      const card = page.getByTestId('swipe-card');
      await expect.poll(() => card.locator('h2').textContent()).toMatch(/Marco|Leo/);
      expect((await client(app.server.url).post('/api/events/leave/', { token: eva.token })).status).toBe(204);
    } finally {
      await context.close();
    }
  });

  it('joins the event whose page the login was opened from, not one scanned before and left', async () => {
    const zoe = await makeCompletedUser(app.server, { name: 'Zoe' }, { firstName: 'Zoe' });
    const lounge = await makeEvent(app.server, organizer, { name: 'Garden Lounge', join_mode: 'code' });
    const { context, page } = await openPhone(app.browser);
    try {
      // A scan at one door, gone on from without signing up (the pass is kept)…
      const qr = await client(app.server.url).get(`/api/events/${event.id}/qr/`, { token: organizer.token });
      await page.goto(qr.body.url);
      await page.getByText(es['eventPage.passKept']).waitFor();
      // …then another event's page, where they log in to join it.
      await page.goto(`${app.server.url}/e/${lounge.code}`);
      await page.getByRole('link', { name: es['eventPage.login'] }).click();
      await logIn(page, zoe);
      await page.getByRole('region', { name: 'Garden Lounge' }).waitFor();
      expect((await client(app.server.url).get('/api/events/current/', { token: zoe.token })).body.event?.id).toBe(lounge.id);
      expect((await client(app.server.url).post('/api/events/leave/', { token: zoe.token })).status).toBe(204);
    } finally {
      await context.close();
    }
  });

  it('asks someone at another event, once a QR link\'s login finds them there, before it moves them', async () => {
    const rosa = await makeCompletedUser(app.server, { name: 'Rosa' }, { firstName: 'Rosa' });
    const warmUp = await makeEvent(app.server, organizer, { name: 'Warm-up Drinks', join_mode: 'code' });
    await checkIn(app.server, rosa, warmUp.code);
    const currentOf = async () => (await client(app.server.url).get('/api/events/current/', { token: rosa.token })).body.event?.name;
    const { context, page } = await openPhone(app.browser);
    try {
      const qr = await client(app.server.url).get(`/api/events/${event.id}/qr/`, { token: organizer.token });
      await page.goto(qr.body.url);
      await page.getByRole('link', { name: es['eventPage.login'] }).click();
      await logIn(page, rosa);
      // Back on the event's page, asked, on a sheet over it (its styles come with it outside the app).
      const sheet = page.getByRole('dialog', { name: format(es['deck.event.leaveTitle'], { name: 'Warm-up Drinks' }) });
      await sheet.waitFor();
      expect(new URL(page.url()).pathname).toBe(`/e/${event.code}`);
      expect(await page.locator('.sheet-backdrop').evaluate((backdrop) => getComputedStyle(backdrop).position)).toBe('fixed');
      expect(await currentOf()).toBe('Warm-up Drinks');
      await entryAnimationsDone(page);
      await shot(page, '10b-login-asks-to-switch');
      await sheet.getByRole('button', { name: format(es['events.switch.confirm'], { name: 'Terrace Night' }) }).click();
      await page.getByRole('region', { name: 'Terrace Night' }).waitFor();
      expect(await currentOf()).toBe('Terrace Night');
      expect((await client(app.server.url).post('/api/events/leave/', { token: rosa.token })).status).toBeLessThan(300);
    } finally {
      await context.close();
    }
  });

  it('keeps nothing of a scan at a door not open yet, so that the app opens on the deck of the event one is at', async () => {
    const saul = await makeCompletedUser(app.server, { name: 'Saúl' }, { firstName: 'Saúl' });
    const warmUp = await makeEvent(app.server, organizer, { name: 'Rooftop Drinks', join_mode: 'code' });
    await checkIn(app.server, saul, warmUp.code);
    const tomorrow = Date.now() + 24 * 3_600_000;
    const brunch = await makeEvent(app.server, organizer, {
      name: 'Sunday Brunch',
      join_mode: 'qr',
      starts_at: new Date(tomorrow).toISOString(),
      ends_at: new Date(tomorrow + 3 * 3_600_000).toISOString(),
    });
    const { context, page } = await openPhone(app.browser, { token: saul.token, language: 'es' });
    try {
      await page.goto(`${app.server.url}/e/${brunch.code}?t=${await tokenFor(app.server, brunch.id)}`);
      await page.getByRole('heading', { name: 'Sunday Brunch' }).waitFor();
      await expect.poll(() => page.evaluate(() => localStorage.getItem('pending_event_join'))).toBeNull();
      await page.goto(`${app.server.url}/app/home/`);
      await page.getByRole('region', { name: 'Rooftop Drinks' }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(new URL(page.url()).pathname).toBe('/app/home/');
    } finally {
      await context.close();
    }
  });

  it('asks before a typed code takes someone out of the event they are at', async () => {
    const ines = await makeCompletedUser(app.server, { name: 'Inés' }, { firstName: 'Inés' });
    await checkIn(app.server, ines, event.code, { token: await tokenFor(app.server, event.id) });
    const other = await makeEvent(app.server, organizer, { name: 'Pool Party', join_mode: 'code' });
    const currentOf = async () => (await client(app.server.url).get('/api/events/current/', { token: ines.token })).body.event?.name;
    const { context, page } = await openPhone(app.browser, { token: ines.token, language: 'en' });
    try {
      await page.goto(`${app.server.url}/app/events/`);
      await page.getByLabel(en['events.join.label']).fill(other.code);
      await page.getByRole('button', { name: en['events.join.submit'] }).click();
      const sheet = page.getByRole('dialog', { name: format(en['deck.event.leaveTitle'], { name: 'Terrace Night' }) });
      await sheet.getByText(format(en['events.switch.body'], { name: 'Terrace Night' })).waitFor();
      await entryAnimationsDone(page);
      await shot(page, '11-switch-event');
      await sheet.getByRole('button', { name: en['deck.event.stay'] }).click();
      await sheet.waitFor({ state: 'detached' });
      expect(await currentOf()).toBe('Terrace Night');

      await page.getByRole('button', { name: en['events.join.submit'] }).click();
      // Named after the event the typed code found.
      await sheet.getByRole('button', { name: format(en['events.switch.confirm'], { name: 'Pool Party' }) }).click();
      await page.getByRole('region', { name: 'Pool Party' }).waitFor();
      expect(await currentOf()).toBe('Pool Party');
    } finally {
      await context.close();
    }
  });

  it('lets an organizer host before writing a dating profile, and counts no one in before theirs is complete', async () => {
    const nora = await makeUser(app.server, { firstName: 'Nora' });
    const { context, page } = await openPhone(app.browser, { token: nora.token, language: 'en' });
    try {
      // Hosting needs no photo, birth date or gender: the events and the new-event form open as they are.
      await page.goto(`${app.server.url}/app/events/`);
      await page.getByRole('heading', { level: 1, name: en['app.nav.events'] }).waitFor();
      await page.goto(`${app.server.url}/app/events/new/`);
      await page.getByLabel(en['events.new.name']).fill('Rooftop Jam');
      await page.getByRole('button', { name: en['events.new.submit'] }).click();
      await page.waitForURL(/\/app\/events\/\d+\/host\/$/);
      await page.getByRole('heading', { level: 1, name: 'Rooftop Jam' }).waitFor();

      // Scanned at the door with the profile still to write: the form first, the pass kept for after it.
      const before = await client(app.server.url).get(`/api/events/${event.id}/stats/`, { token: organizer.token });
      const qr = await client(app.server.url).get(`/api/events/${event.id}/qr/`, { token: organizer.token });
      await page.goto(qr.body.url);
      await page.waitForURL('**/app/profile/');
      expect(await page.evaluate(() => localStorage.getItem('pending_event_join'))).toContain('"pass"');
      expect((await client(app.server.url).get('/api/events/current/', { token: nora.token })).body.event).toBeNull();
      const after = await client(app.server.url).get(`/api/events/${event.id}/stats/`, { token: organizer.token });
      expect(after.body.attendee_count).toBe(before.body.attendee_count);
    } finally {
      await context.close();
    }
  });

  it('lets the organizer into their own QR event from the host screen, and answers a typed QR code before asking to leave', async () => {
    const pia = await makeCompletedUser(app.server, { name: 'Pía' }, { firstName: 'Pía' });
    const elsewhere = await makeEvent(app.server, organizer, { name: 'Warm-up', join_mode: 'code' });
    await checkIn(app.server, pia, elsewhere.code);
    const own = await makeEvent(app.server, pia, { name: 'Pía’s Birthday', join_mode: 'qr' });
    const currentOf = async () => (await client(app.server.url).get('/api/events/current/', { token: pia.token })).body.event?.name;
    const { context, page } = await openPhone(app.browser, { token: pia.token, language: 'en' });
    try {
      // Someone else's QR event, typed: its page, which says the way in is at the door, with no
      // question about leaving Warm-up.
      await page.goto(`${app.server.url}/app/events/`);
      await page.getByLabel(en['events.join.label']).fill(event.code.toLowerCase());
      await page.getByRole('button', { name: en['events.join.submit'] }).click();
      await page.getByRole('heading', { name: event.name }).waitFor();
      await page.getByText(en['eventPage.qrOnly']).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/e/${event.code}`);
      expect(await page.getByRole('dialog').count()).toBe(0);
      expect(await currentOf()).toBe('Warm-up');
      // Outside the app's navigation, and no dead end: the way back into it.
      await page.getByRole('link', { name: en['eventPage.back'] }).click();
      await page.getByRole('region', { name: 'Warm-up' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/app/home/');

      // Her own: one tap on her host screen, asked first since it leaves Warm-up.
      await page.goto(`${app.server.url}/app/events/${own.id}/host/`);
      await page.getByRole('button', { name: en['host.joinMyself'] }).scrollIntoViewIfNeeded();
      await shot(page, '13-host-join-myself');
      await page.getByRole('button', { name: en['host.joinMyself'] }).click();
      const sheet = page.getByRole('dialog', { name: format(en['deck.event.leaveTitle'], { name: 'Warm-up' }) });
      await sheet.getByRole('button', { name: format(en['events.switch.confirm'], { name: 'Pía’s Birthday' }) }).click();
      await page.getByRole('region', { name: 'Pía’s Birthday' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/app/home/');
      expect(await currentOf()).toBe('Pía’s Birthday');
      // Back on the host screen, the way to the deck in its place.
      await page.goto(`${app.server.url}/app/events/${own.id}/host/`);
      await page.getByRole('link', { name: en['events.current.deck'] }).waitFor();
      expect(await page.getByRole('button', { name: en['host.joinMyself'] }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});

/** Logs in, in Spanish, on the log-in form the page shows. */
async function logIn(page: Page, { email, password }: { email: string; password: string }) {
  await page.getByLabel(es['auth.email']).fill(email);
  await page.getByLabel(es['auth.password']).fill(password);
  await page.getByRole('button', { name: es['login.submit'] }).click();
}

/**
 * Fills in, in Spanish, all a first profile needs to be saved (a woman looking for men, born on 12 April
 * of `born`, with one photo of `photoColor`), and leaves the save to the test.
 */
async function fillFirstProfile(page: Page, { born, photoColor }: { born: number; photoColor: string }) {
  await page.getByLabel(es['profile.bio']).fill('Aquí por la música.');
  await page.getByTestId('photo-input').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: await imageBytes('png', { width: 600, height: 800, color: photoColor }) });
  await page.getByTestId('photo-grid').locator('img[src^="/media/"]').waitFor();
  await page.getByLabel(es['profile.dateOfBirth']).click();
  await page.getByLabel(es['profile.year'], { exact: true }).selectOption(String(born));
  // Months are 0-based: 3 is April.
  await page.getByLabel(es['profile.month'], { exact: true }).selectOption('3');
  await page.getByRole('grid').getByRole('button', { name: new RegExp(`12 de abril de ${born}`) }).click();
  await page.getByLabel(es['profile.gender']).selectOption('female');
  await page.getByRole('checkbox', { name: es['gender.male'] }).check();
}
