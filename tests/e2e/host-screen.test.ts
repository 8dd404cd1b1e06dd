/**
 * The organizer's host screen in Chromium against the real server, as it is shown to a room: the big
 * screen (the door's QR, code and count alone, over everything else), no chat message popping up on
 * it (and the screen kept awake), the organizer's changes reaching the attendees' phones at once, the
 * event's link shared, and End and Delete behind the app's own confirm sheets. Screenshots land in
 * tests/e2e/artifacts/host-*.png.
 */
import { eq } from 'drizzle-orm';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../server/db/schema';
import { en } from '../../shared/i18n/en';
import { format } from '../../shared/i18n/format';
import { checkIn, makeEvent, setEventTimes, tokenFor } from '../helpers/events';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { tcpProxy } from '../helpers/tcp-proxy';
import { entryAnimationsDone, hasChromium, holdSocketUntil, keepShot, opening, openPhone, PHONE, socketCaughtUp } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();
const HOUR = 3_600_000;

describe.skipIf(!ready)('the host screen shown to a room (Chromium)', { timeout: 90_000 }, () => {
  // A deployment's address, as a host screen shown to a room has: on 127.0.0.1, the screen would say
  // its code points at this computer (tests/client/host-qr.test.tsx), in the door these tests measure.
  const app = appInChromium({ publicUrl: 'https://party.example.com' });
  let organizer: TestUser;
  let friend: TestUser;
  let conversationId: number;
  let tab: { context: BrowserContext; page: Page };
  const api = () => client(app.server.url);
  async function shot(page: Page, name: string) {
    await entryAnimationsDone(page);
    await keepShot(page, `host-${name}`);
  }

  beforeAll(async () => {
    organizer = await makeCompletedUser(app.server, { name: 'Olga', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Olga' });
    friend = await makeCompletedUser(app.server, { name: 'Lucas', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Lucas' });
    await api().post('/api/matching/', { token: friend.token, json: { response: 'like', other: organizer.id } });
    const matched = await api().post('/api/matching/', { token: organizer.token, json: { response: 'like', other: friend.id } });
    conversationId = matched.body.conversation_id;
    tab = await openPhone(app.browser, { token: organizer.token, language: 'en' });
  }, 120_000);

  it('shows the door alone on the big screen, where a chat message does not pop up, until Close or Back', async () => {
    const { page } = tab;
    const event = await makeEvent(app.server, organizer, { name: 'Garden Brunch', join_mode: 'code' });
    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    await page.locator('.host-qr img').waitFor();
    // Said as what it is, not as the secret link it holds.
    expect(await page.locator('.host-qr img').getAttribute('alt')).toBe('QR code to join Garden Brunch');
    // A code event's door says the code can be typed.
    await page.locator('.host-door .host-code', { hasText: event.code }).waitFor();
    await page.locator('.host-door').getByText(en['host.typeCode']).waitFor();

    await page.getByRole('button', { name: en['host.present'] }).click();
    const big = page.getByRole('dialog', { name: 'Garden Brunch' });
    await big.locator('.host-qr img').waitFor();
    await big.locator('.host-code', { hasText: event.code }).waitFor();
    // It fills the screen: the QR is most of the phone's width.
    const box = await big.locator('.host-qr img').boundingBox();
    expect(box!.width).toBeGreaterThan(0.8 * 390);
    // On a laptop or a projector (16:10 and 16:9) too, all of it shows at once: the name whole, nothing
    // past the screen's edge.
    for (const screen of [{ width: 1280, height: 800 }, { width: 1280, height: 720 }]) {
      await page.setViewportSize(screen);
      const fits = await big.evaluate((dialog) => {
        const name = dialog.querySelector('h2')!;
        return { name: name.scrollHeight - name.clientHeight, dialog: dialog.scrollHeight - dialog.clientHeight };
      });
      expect(fits, `${screen.width}×${screen.height}`).toEqual({ name: 0, dialog: 0 });
      await shot(page, `01a-big-screen-${screen.width}x${screen.height}`);
    }
    await page.setViewportSize(PHONE);

    // Lucas writes to Olga: on the host screen, nothing of it shows.
    const sent = await api().post(`/api/conversations/${conversationId}/messages/`, {
      token: friend.token,
      json: { content: 'Where are you? I am waiting by the door' },
    });
    expect(sent.status).toBe(201);
    // Heard: its count is on the tab's title, in the same render a toast of it would have come in.
    await page.waitForFunction(() => document.title.startsWith('(1) '));
    expect(await page.getByText('Where are you?').count()).toBe(0);
    await shot(page, '01-big-screen');

    await big.getByRole('button', { name: en['host.presentClose'] }).press('Enter');
    await big.waitFor({ state: 'detached' });
    expect(await page.getByText('Where are you?').count()).toBe(0);
    // The keyboard is back on the button that opened it.
    const present = page.getByRole('button', { name: en['host.present'] });
    await expect.poll(() => present.evaluate((button) => button === document.activeElement)).toBe(true);

    // The back gesture closes it too, and the host screen stays.
    await page.getByRole('button', { name: en['host.present'] }).click();
    await big.locator('.host-qr img').waitFor();
    await page.goBack();
    await big.waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe(`/app/events/${event.id}/host/`);
    await page.getByRole('button', { name: en['host.present'] }).waitFor();
  });

  it('stops showing the way in on the big screen at the door once the event is ended from another screen', async () => {
    const { page } = tab;
    const event = await makeEvent(app.server, organizer, { name: 'Late Jazz', join_mode: 'code' });
    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    await page.getByRole('button', { name: en['host.present'] }).click();
    const big = page.getByRole('dialog', { name: 'Late Jazz' });
    await big.locator('.host-qr img').waitFor();

    expect((await api().post(`/api/events/${event.id}/end/`, { token: organizer.token })).status).toBe(200);
    await big.getByText(en['host.bigEnded']).waitFor();
    expect(await big.locator('.host-qr, .host-code').count()).toBe(0);
    await shot(page, '01b-big-screen-ended');
    await big.getByRole('button', { name: en['host.presentClose'] }).click();
    await big.waitFor({ state: 'detached' });
  });

  it('says at once on the big screen at the door that an event deleted from another screen is canceled', async () => {
    // Another organizer's: Olga's list of events, and her events of the day, are the later tests'.
    const host = await makeCompletedUser(app.server, { name: 'Elsa', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Elsa' });
    const door = await openPhone(app.browser, { token: host.token, language: 'en' });
    try {
      const event = await makeEvent(app.server, host, {
        name: 'Tomorrow Tapas',
        join_mode: 'code',
        starts_at: new Date(Date.now() + 20 * HOUR).toISOString(),
        ends_at: new Date(Date.now() + 23 * HOUR).toISOString(),
      });
      const { page } = door;
      await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
      await page.getByRole('button', { name: en['host.present'] }).click();
      const big = page.getByRole('dialog', { name: 'Tomorrow Tapas' });
      await big.locator('.host-qr img').waitFor();

      // Well before the screen's next code (a minute on), which would be refused.
      expect((await api().delete(`/api/events/${event.id}/`, { token: host.token })).status).toBe(204);
      await big.getByText(en['host.bigDeleted']).waitFor({ timeout: 5000 });
      expect(await big.locator('.host-qr, .host-code, .host-big-count').count()).toBe(0);
      await shot(page, '01c-big-screen-deleted');
      await big.getByRole('button', { name: en['host.presentClose'] }).click();
      await big.waitFor({ state: 'detached' });
      await page.getByText(en['host.deletedNotice']).waitFor();
      expect(await page.getByRole('button', { name: en['host.present'] }).count()).toBe(0);
    } finally {
      await door.context.close();
    }
  });

  it('shows an event ended from another screen while the door had no network as ended, once back', async () => {
    const proxy = await tcpProxy(app.server.url);
    // Another organizer's: Olga's list of events, and her events of the day, are the later tests'.
    const host = await makeCompletedUser(app.server, { name: 'Nora', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Nora' });
    const door = await openPhone(app.browser, { token: host.token, language: 'en' });
    try {
      const event = await makeEvent(app.server, host, { name: 'Dock Party', join_mode: 'qr' });
      await door.page.goto(`${proxy.url}/app/events/${event.id}/host/`);
      await door.page.locator('.host-qr img').waitFor();
      await door.page.getByRole('button', { name: en['host.present'] }).waitFor();

      // The Wi-Fi by the door drops; meanwhile the organizer ends the event from their phone.
      proxy.cut();
      expect((await api().post(`/api/events/${event.id}/end/`, { token: host.token })).status).toBe(200);
      proxy.restore();
      await door.page.getByText(en['host.ended'].split('.')[0]!).waitFor();
      expect(await door.page.locator('.host-qr').count()).toBe(0);
      expect(await door.page.getByRole('button', { name: en['host.present'] }).count()).toBe(0);
    } finally {
      await door.context.close();
      await proxy.close();
    }
  });

  it('stops hearing the event once its host screen is left for another page', async () => {
    // Another organizer's: Olga's list of events, and her events of the day, are the later tests'.
    const host = await makeCompletedUser(app.server, { name: 'Iris', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Iris' });
    const door = await openPhone(app.browser, { token: host.token, language: 'en' });
    try {
      // Still to come: "My events" keeps the counts of those going on live, so it would watch this one
      // again (the 0 in between then a race), but not one that nobody can be in yet.
      const startsAt = Date.now() + 2 * HOUR;
      const times = { starts_at: new Date(startsAt).toISOString(), ends_at: new Date(startsAt + 3 * HOUR).toISOString() };
      const event = await makeEvent(app.server, host, { name: 'Harbour Lights', join_mode: 'code', ...times });
      const inRoom = async () => (await app.server.app.io.in(`event:${event.id}`).fetchSockets()).length;
      await door.page.goto(`${app.server.url}/app/events/${event.id}/host/`);
      await expect.poll(inRoom, { timeout: 10_000 }).toBe(1);
      // Back to the list, in the same tab and over the same socket: the event's counts are no longer its news.
      await door.page.locator('.back-link').click();
      await door.page.waitForURL(`${app.server.url}/app/events/`);
      await door.page.getByText('Harbour Lights').waitFor();
      await expect.poll(inRoom, { timeout: 10_000 }).toBe(0);
    } finally {
      await door.context.close();
    }
  });

  it('shows the count as not live while the door has no network, here and on the big screen', async () => {
    const proxy = await tcpProxy(app.server.url);
    // Another organizer's: Olga's list of events, and her events of the day, are the later tests'.
    const host = await makeCompletedUser(app.server, { name: 'Vera', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Vera' });
    const door = await openPhone(app.browser, { token: host.token, language: 'en' });
    try {
      const event = await makeEvent(app.server, host, { name: 'Quay Nights', join_mode: 'qr' });
      await door.page.goto(`${proxy.url}/app/events/${event.id}/host/`);
      await door.page.locator('.host-qr img').waitFor();
      await door.page.getByRole('button', { name: en['host.present'] }).click();
      const big = door.page.getByRole('dialog', { name: 'Quay Nights' });
      await big.locator('.host-big-count .live-dot:not(.is-stale)').waitFor();

      // The count stops coming with the network: the dot stops saying it is live.
      proxy.cut();
      await big.locator('.host-big-count .live-dot.is-stale').waitFor();
      expect(await door.page.locator('.host-live .live-dot.is-stale').count()).toBe(1);
      proxy.restore();
      await big.locator('.host-big-count .live-dot:not(.is-stale)').waitFor();
      expect(await door.page.locator('.host-live .live-dot.is-stale').count()).toBe(0);
    } finally {
      await door.context.close();
      await proxy.close();
    }
  });

  it('takes the screen\'s wake lock again each time the big screen comes back into view', async () => {
    const { page } = tab;
    const event = await makeEvent(app.server, organizer, { name: 'Wake Up', join_mode: 'qr' });
    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    await page.locator('.host-qr img').waitFor();
    // The browser's lock, as the page sees it; a hidden tab loses it (the browser releases it).
    await page.evaluate(() => {
      const locks: Array<{ released: boolean; release: () => Promise<void> }> = [];
      Object.assign(window, { locks });
      Object.defineProperty(navigator, 'wakeLock', {
        configurable: true,
        value: {
          request: async () => {
            const lock = { released: false, release: async () => void (lock.released = true) };
            locks.push(lock);
            return lock;
          },
        },
      });
    });
    const locks = () => page.evaluate(() => (window as unknown as { locks: Array<{ released: boolean }> }).locks.map((lock) => lock.released));
    const hideAndShow = () =>
      page.evaluate(() => {
        const { locks } = window as unknown as { locks: Array<{ released: boolean }> };
        for (const lock of locks) lock.released = true;
        for (const state of ['hidden', 'visible']) {
          Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
          document.dispatchEvent(new Event('visibilitychange'));
        }
      });

    await page.getByRole('button', { name: en['host.present'] }).click();
    const big = page.getByRole('dialog', { name: 'Wake Up' });
    await big.waitFor();
    await expect.poll(locks).toEqual([false]);
    await hideAndShow();
    await expect.poll(locks).toEqual([true, false]);
    await big.getByRole('button', { name: en['host.presentClose'] }).click();
    await big.waitFor({ state: 'detached' });
    await expect.poll(locks).toEqual([true, true]);
    // Closed: back in view, the screen may sleep again: no lock asked for as it came back, nor by its next frame.
    await hideAndShow();
    await page.evaluate(() => new Promise(requestAnimationFrame));
    expect(await locks()).toEqual([true, true]);
  });

  it('changes the event from the host screen, and the attendees\' phones show it at once', async () => {
    const { page } = tab;
    const event = await makeEvent(app.server, organizer, { name: 'Garden Party', join_mode: 'qr' });
    await checkIn(app.server, friend, event.code, { token: await tokenFor(app.server, event.id) });
    const guest = await openPhone(app.browser, { token: friend.token, language: 'en' });
    try {
      await guest.page.goto(`${app.server.url}/app/home/`);
      await guest.page.getByRole('region', { name: 'Garden Party' }).waitFor();

      await page.goto(`${app.server.url}/app/events/`);
      await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
      // One headcount, the big one.
      await page.locator('.host-live-number', { hasText: '1' }).waitFor();
      expect(await page.locator('.event-count').count()).toBe(0);
      await page.getByRole('link', { name: en['host.edit'] }).click();
      await page.waitForURL(/\/edit\/$/);
      const name = page.getByLabel(en['events.new.name'], { exact: true });
      expect(await name.inputValue()).toBe('Garden Party');
      // It started an hour ago: its start stays.
      expect(await page.getByLabel(new RegExp(`^${en['events.new.starts']}`)).isDisabled()).toBe(true);
      await name.fill('Garden Party, Upstairs');
      // The projector failed: the code read out will do.
      await page.getByText(en['events.new.joinMode.code'], { exact: true }).click();
      await shot(page, '03-edit');
      await page.getByRole('button', { name: en['events.edit.submit'] }).click();
      await page.waitForURL(/\/host\/$/);
      await page.getByRole('heading', { name: 'Garden Party, Upstairs' }).waitFor();
      await page.getByText(en['events.edit.saved']).waitFor();
      await page.locator('.host-door .host-code', { hasText: event.code }).waitFor();
      expect((await api().get(`/api/events/${event.code}/`)).body).toMatchObject({ name: 'Garden Party, Upstairs', join_mode: 'code' });

      // The guest's phone, untouched, already says so, once in a toast.
      await guest.page.getByRole('region', { name: 'Garden Party, Upstairs' }).waitFor();
      await guest.page.getByText(format(en['deck.event.changed'], { name: 'Garden Party, Upstairs' })).waitFor();
      // Saved, the organizer is back on the host screen they came from: Back then leaves it, with no
      // form and no second host screen in between.
      await page.goBack();
      await page.waitForURL((url) => !url.pathname.startsWith(`/app/events/${event.id}/`));

      // Ended early: the guest hears that too, and the bar says it has ended.
      expect((await api().post(`/api/events/${event.id}/end/`, { token: organizer.token })).status).toBe(200);
      await guest.page.getByText(format(en['deck.event.endedEarly'], { name: 'Garden Party, Upstairs', hours: 24 })).waitFor();
      await guest.page.getByRole('region', { name: 'Garden Party, Upstairs' }).getByText(format(en['deck.event.ended'], { count: 1 })).waitFor();
      // And the empty deck no longer promises newcomers.
      await guest.page.getByText(en['deck.emptyAtEndedEvent']).waitFor();
      await shot(guest.page, '06-guest-ended-early');
    } finally {
      await guest.context.close();
    }
  });

  it('tells a guest checked in early that the organizer canceled the event, and takes them out of it', async () => {
    const event = await makeEvent(app.server, organizer, { name: 'Dawn Brunch', join_mode: 'code' });
    // Check-in opens an hour before the start: Lucas is in, half an hour early.
    await setEventTimes(app.server, event.id, { startsAt: new Date(Date.now() + HOUR / 2), endsAt: new Date(Date.now() + 3 * HOUR) });
    await checkIn(app.server, friend, event.code);
    const guest = await openPhone(app.browser, { token: friend.token, language: 'en' });
    try {
      await guest.page.goto(`${app.server.url}/app/home/`);
      const bar = guest.page.getByRole('region', { name: 'Dawn Brunch' });
      await bar.waitFor();
      expect((await api().delete(`/api/events/${event.id}/`, { token: organizer.token })).status).toBe(204);
      await guest.page.getByText(format(en['deck.event.deleted'], { name: 'Dawn Brunch' })).waitFor();
      await bar.waitFor({ state: 'detached' });
      await shot(guest.page, '06b-guest-event-canceled');
    } finally {
      await guest.context.close();
    }
  });

  it('shows an event ended early while the phone connected as ended, once connected', async () => {
    // Another organizer's: Olga's list of events is read by the tests that follow.
    const host = await makeCompletedUser(app.server, { name: 'Rita', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Rita' });
    const event = await makeEvent(app.server, host, { name: 'Rooftop Hour', join_mode: 'qr' });
    await checkIn(app.server, friend, event.code, { token: await tokenFor(app.server, event.id) });
    // A slow network: the guest's socket reaches the server only when the gate opens.
    const gate = opening();
    const guest = await openPhone(app.browser, { token: friend.token, language: 'en' });
    await holdSocketUntil(guest.page, () => gate.promise);
    try {
      const read = guest.page.waitForResponse((response) => response.url().endsWith('/api/events/current/'));
      await guest.page.goto(`${app.server.url}/app/home/`);
      await read;
      const bar = guest.page.getByRole('region', { name: 'Rooftop Hour' });
      await bar.waitFor();
      // Ended while the socket was not yet in the event's room: its news went to no one.
      expect((await api().post(`/api/events/${event.id}/end/`, { token: host.token })).status).toBe(200);
      gate.open();
      await bar.getByText(format(en['deck.event.ended'], { count: 1 })).waitFor();
    } finally {
      await guest.context.close();
    }
  });

  it('shares the event page\'s link through the phone\'s share sheet, or copies it', async () => {
    const { page, context } = tab;
    const event = await makeEvent(app.server, organizer, { name: 'Open Mic' });
    const link = `${app.server.url}/e/${event.code}`;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.server.url });
    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    await page.locator('.host-qr img').waitFor();

    await page.evaluate(() => Object.defineProperty(navigator, 'share', { configurable: true, value: undefined }));
    await page.getByRole('button', { name: en['host.share'] }).click();
    await page.getByText(en['host.linkCopied']).waitFor();
    await shot(page, '04-link-copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);

    await page.evaluate(() => {
      const shared: unknown[] = [];
      Object.assign(window, { shared });
      Object.defineProperty(navigator, 'share', { configurable: true, value: async (data: unknown) => void shared.push(data) });
    });
    await page.getByRole('button', { name: en['host.share'] }).click();
    await expect.poll(() => page.evaluate(() => (window as unknown as { shared: unknown[] }).shared)).toEqual([{ title: 'Open Mic', url: link }]);

    // Neither a share sheet nor a clipboard (a page whose address is not secure): the link, selected, to copy by hand.
    await page.evaluate(() => {
      Object.defineProperty(navigator, 'share', { configurable: true, value: undefined });
      Object.defineProperty(navigator, 'clipboard', { configurable: true, value: undefined });
    });
    await page.getByRole('button', { name: en['host.share'] }).click();
    const sheet = page.getByRole('dialog', { name: en['host.linkTitle'] });
    const field = sheet.getByRole('textbox', { name: en['host.linkTitle'] });
    expect(await field.inputValue()).toBe(link);
    await expect.poll(() => page.evaluate(() => String(window.getSelection()))).toBe(link);
    await shot(page, '07-link-by-hand');
    await sheet.getByRole('button', { name: en['host.close'] }).click();
    await sheet.waitFor({ state: 'detached' });
  });

  it('ends an event after a confirm sheet that says what ending does', async () => {
    const { page } = tab;
    const event = await makeEvent(app.server, organizer, { name: 'Late Set' });
    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    await page.getByRole('button', { name: en['host.end'] }).click();
    const sheet = page.getByRole('dialog', { name: format(en['host.endTitle'], { name: 'Late Set' }) });
    await sheet.getByText(format(en['host.endText'], { hours: 24 })).waitFor();
    await shot(page, '02-end-confirm');
    await sheet.getByRole('button', { name: en['host.cancel'] }).click();
    await sheet.waitFor({ state: 'detached' });
    expect((await api().get(`/api/events/${event.code}/`)).body.status).toBe('open');

    await page.getByRole('button', { name: en['host.end'] }).click();
    await sheet.getByRole('button', { name: en['host.end'] }).click();
    await sheet.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: en['host.statsEnded'] }).waitFor();
    expect((await api().get(`/api/events/${event.code}/`)).body.status).toBe('after');

    // My events: what is over is listed apart, under what is still to come or going on.
    await page.goto(`${app.server.url}/app/events/`);
    const past = page.locator('.my-events-past + .my-events .my-event-name');
    await past.filter({ hasText: 'Late Set' }).waitFor();
    await page.getByRole('heading', { name: en['events.mine.past'] }).scrollIntoViewIfNeeded();
    await shot(page, '05-my-events-past');
    // Newest first: this one, then the ones ended from the API in the tests before.
    expect(await past.allTextContents()).toEqual(['Late Set', 'Garden Party, Upstairs', 'Late Jazz']);
    expect(await page.locator('.my-events').first().locator('.my-event-name').allTextContents()).toContain('Garden Brunch');
  });

  it('deletes an event that has not started after a confirm sheet, and Back does not return to it', async () => {
    const { page } = tab;
    const startsAt = Date.now() + 5 * 24 * HOUR;
    const event = await makeEvent(app.server, organizer, {
      name: 'Next Friday',
      starts_at: new Date(startsAt).toISOString(),
      ends_at: new Date(startsAt + 4 * HOUR).toISOString(),
    });
    await page.goto(`${app.server.url}/app/events/`);
    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    // Nothing has happened yet: no "tonight so far".
    await page.locator('.host-qr img').waitFor();
    expect(await page.getByRole('heading', { name: en['host.stats'] }).count()).toBe(0);

    await page.getByRole('button', { name: en['host.delete'] }).click();
    const sheet = page.getByRole('dialog', { name: format(en['host.deleteTitle'], { name: 'Next Friday' }) });
    await sheet.getByText(en['host.deleteText']).waitFor();
    await sheet.getByRole('button', { name: en['host.delete'] }).click();
    await page.waitForURL(/\/app\/events\/$/);
    await page.getByText(en['host.deleted']).waitFor();
    expect((await api().get(`/api/events/${event.code}/`)).status).toBe(404);
    await page.goBack();
    await page.waitForURL(/\/app\/events\/$/);
  });

  it('tells an organizer checked in to their own event who deletes it that it is deleted, not that the organizer canceled it', async () => {
    // Another organizer's: Olga's list of events, and her events of the day, are the later tests'.
    const host = await makeCompletedUser(app.server, { name: 'Nina', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Nina' });
    const door = await openPhone(app.browser, { token: host.token, language: 'en' });
    try {
      // Check-in opens an hour before the start: she is in, and it can still be deleted.
      const event = await makeEvent(app.server, host, {
        name: 'Early Mixer',
        starts_at: new Date(Date.now() + HOUR / 2).toISOString(),
        ends_at: new Date(Date.now() + 3 * HOUR).toISOString(),
      });
      await checkIn(app.server, host, event.code);
      const { page } = door;
      await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
      await page.locator('.host-qr img').waitFor();
      await page.getByRole('button', { name: en['host.delete'] }).click();
      const sheet = page.getByRole('dialog', { name: format(en['host.deleteTitle'], { name: 'Early Mixer' }) });
      await sheet.getByRole('button', { name: en['host.delete'] }).click();
      await page.waitForURL(/\/app\/events\/$/);
      await page.getByText(en['host.deleted']).waitFor();
      // At no event now, on the deck too: that tab's socket, in the host room, is not told to read
      // again as the guests' are.
      await page.getByRole('navigation', { name: en['app.nav.label'] }).getByRole('link', { name: en['app.nav.home'] }).click();
      await page.waitForURL(/\/app\/home\/?$/);
      await page.getByText(en['deck.event.join']).waitFor();
      expect(await page.getByRole('region', { name: 'Early Mixer' }).count()).toBe(0);
      // Its socket's word that the event is gone came too (the host screen's): not said as someone else's doing.
      await socketCaughtUp(page, app.server, host.id);
      expect(await page.getByText(format(en['deck.event.deleted'], { name: 'Early Mixer' })).count()).toBe(0);
    } finally {
      await door.context.close();
    }
  });

  /** Where a box of the page lies between the app's top bar and its bottom nav: wholly there, or not. */
  async function between(page: Page, selector: string) {
    const [box, top, bottom] = await Promise.all([selector, '.top-bar', '.bottom-nav'].map(async (it) => (await page.locator(it).first().boundingBox())!));
    return { box: box!, shown: box!.y >= top!.y + top!.height && box!.y + box!.height <= bottom!.y };
  }

  /** Whether the door's code is drawn inside the door's padding. */
  const codeInsideDoor = (page: Page) =>
    page.locator('.host-door .host-code').evaluate((code) => {
      const door = code.closest('.host-door')!;
      const padding = parseFloat(getComputedStyle(door).paddingLeft) + parseFloat(getComputedStyle(door).paddingRight);
      const text = document.createRange();
      text.selectNodeContents(code);
      return text.getBoundingClientRect().width <= door.clientWidth - padding;
    });

  it('puts the live count beside the QR on a laptop, and on one screen with the QR and the code on a phone', async () => {
    const { page } = tab;
    // Its code the widest one its letters make, the same each run: a drawn one with a few Ws and Ms
    // ran past a 360 px phone's edge (the page 386 px wide), where most fit.
    const drawn = await makeEvent(app.server, organizer, { name: 'Harbour Lights', join_mode: 'code' });
    await app.server.app.db.update(events).set({ code: 'WWWWWW' }).where(eq(events.id, drawn.id));
    const event = { ...drawn, code: 'WWWWWW' };
    const guest = await makeCompletedUser(app.server, { name: 'Tomas', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Tomas' });
    await checkIn(app.server, guest, event.code);
    await page.setViewportSize({ width: 1280, height: 800 });
    try {
      await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
      await page.locator('.host-live-number', { hasText: '1' }).waitFor();
      await page.locator('.host-qr img').waitFor();
      await page.locator('.event-chart[aria-busy="false"]').waitFor();
      const qr = await between(page, '.host-qr img');
      const live = await between(page, '.host-live');
      await shot(page, '08-laptop-1280x800');
      expect({ qr: qr.shown, live: live.shown }).toEqual({ qr: true, live: true });
      expect(await codeInsideDoor(page)).toBe(true);
      // Side by side, the count to the right of the door.
      expect(live.box.x).toBeGreaterThan(qr.box.x + qr.box.width);

      // A phone keeps its one column: the door first, the count under it, nothing wider than the screen.
      for (const screen of [{ width: 360, height: 740 }, { width: 320, height: 568 }]) {
        await page.setViewportSize(screen);
        const door = (await page.locator('.host-door').boundingBox())!;
        const count = (await page.locator('.host-live').boundingBox())!;
        expect(count.y, `${screen.width}×${screen.height}`).toBeGreaterThan(door.y + door.height);
        expect(await codeInsideDoor(page), `${screen.width}×${screen.height}`).toBe(true);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(screen.width);
        await shot(page, `08-phone-${screen.width}x${screen.height}`);
      }
      // A phone held up to the queue, scrolled to the QR: the code and the count show with it, under the
      // top bar and over the bottom nav; the door's buttons come after.
      for (const screen of [{ width: 360, height: 640 }, PHONE]) {
        await page.setViewportSize(screen);
        await page.locator('.host-qr img').evaluate((qr) => qr.scrollIntoView({ block: 'start' }));
        const [image, code, count] = await Promise.all(['.host-qr img', '.host-door .host-code', '.host-live'].map((it) => between(page, it)));
        const present = (await page.getByRole('button', { name: en['host.present'] }).boundingBox())!;
        await shot(page, `08b-phone-door-${screen.width}x${screen.height}`);
        expect([image!.shown, code!.shown, count!.shown], `${screen.width}×${screen.height}`).toEqual([true, true, true]);
        expect(present.y).toBeGreaterThan(count!.box.y + count!.box.height);
      }
    } finally {
      await page.setViewportSize(PHONE);
    }
  });

  it('says when check-in opens above a QR shown as not yet working, before it opens', async () => {
    const { page } = tab;
    const startsAt = Date.now() + 2 * 24 * HOUR;
    const event = await makeEvent(app.server, organizer, {
      name: 'Sunday Picnic',
      join_mode: 'qr',
      starts_at: new Date(startsAt).toISOString(),
      ends_at: new Date(startsAt + 4 * HOUR).toISOString(),
    });
    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    const door = page.locator('.host-door');
    await door.locator('.host-qr img').waitFor();
    // Not "Scan to join" two days early: when it opens, first.
    const opens = door.getByText(en['host.upcoming'].split('{time}')[0]!);
    await opens.waitFor();
    expect(await door.getByText(en['host.scan']).count()).toBe(0);
    // Still there to print or to try (the server tells an early guest when to come back), but faded.
    expect(Number(await door.locator('.host-qr').evaluate((qr) => getComputedStyle(qr).opacity))).toBeLessThan(0.6);
    try {
      for (const screen of [{ width: 360, height: 740 }, { width: 1280, height: 800 }, { width: 320, height: 568 }]) {
        await page.setViewportSize(screen);
        // The smallest phone has room for it under the header only without the e-mail banner (closed
        // once, it stays closed for the visit).
        if (screen.width === 320) await page.getByRole('button', { name: en['app.verifyDismiss'] }).click();
        const notice = await between(page, '.host-door .notice');
        const qr = (await door.locator('.host-qr img').boundingBox())!;
        await shot(page, `09-upcoming-${screen.width}x${screen.height}`);
        expect(notice.shown, `${screen.width}×${screen.height}`).toBe(true);
        expect(notice.box.y + notice.box.height).toBeLessThanOrEqual(qr.y);
      }
    } finally {
      await page.setViewportSize(PHONE);
    }
    // The big screen by the door says the same.
    await page.getByRole('button', { name: en['host.present'] }).click();
    const big = page.getByRole('dialog', { name: 'Sunday Picnic' });
    await big.getByText(en['host.upcoming'].split('{time}')[0]!).waitFor();
    expect(await big.getByText(en['host.scan']).count()).toBe(0);
    expect(Number(await big.locator('.host-qr').evaluate((qr) => getComputedStyle(qr).opacity))).toBeLessThan(0.6);
    await big.getByRole('button', { name: en['host.presentClose'] }).click();
  });

  it('says an event that is gone is not available, with the way back to the events', async () => {
    const { page } = tab;
    await page.goto(`${app.server.url}/app/events/999999/host/`);
    await page.getByText(en['host.notFound']).waitFor();
    await page.getByRole('link', { name: en['events.title'] }).first().waitFor();
  });
});
