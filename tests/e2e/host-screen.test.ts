/**
 * The organizer's host screen in Chromium against the real server, as it is shown to a room: the big
 * screen (the door's QR, code and count alone, over everything else), no chat message popping up on
 * it, and End and Delete behind the app's own confirm sheets. Screenshots land in
 * tests/e2e/artifacts/host-*.png.
 */
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import { format } from '../../shared/i18n/format';
import { makeEvent } from '../helpers/events';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { ARTIFACTS, entryAnimationsDone, hasChromium, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();
const HOUR = 3_600_000;

describe.skipIf(!ready)('the host screen shown to a room (Chromium)', { timeout: 90_000 }, () => {
  const app = appInChromium();
  let organizer: TestUser;
  let friend: TestUser;
  let conversationId: number;
  let tab: { context: BrowserContext; page: Page };
  const api = () => client(app.server.url);
  async function shot(page: Page, name: string) {
    await entryAnimationsDone(page);
    await page.screenshot({ path: path.join(ARTIFACTS, `host-${name}.png`) });
  }

  beforeAll(async () => {
    organizer = await makeCompletedUser(app.server, { name: 'Olga', gender: 'female', genders_to_match: ['male'] }, { firstName: 'Olga' });
    friend = await makeCompletedUser(app.server, { name: 'Lucas', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Lucas' });
    await api().post('/api/matching/', { token: friend.token, json: { response: 'like', other: organizer.id } });
    const matched = await api().post('/api/matching/', { token: organizer.token, json: { response: 'like', other: friend.id } });
    conversationId = matched.body.conversation_id;
    tab = await openPhone(app.browser, { token: organizer.token, language: 'en' });
  }, 120_000);

  it('shows the door alone on the big screen, where a chat message does not pop up', async () => {
    const { page } = tab;
    const event = await makeEvent(app.server, organizer, { name: 'Garden Brunch', join_mode: 'code' });
    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    await page.locator('.host-qr img').waitFor();
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

    // Lucas writes to Olga: on the host screen, nothing of it shows.
    const sent = await api().post(`/api/conversations/${conversationId}/messages/`, {
      token: friend.token,
      json: { content: 'Where are you? I am waiting by the door' },
    });
    expect(sent.status).toBe(201);
    await page.waitForTimeout(1500);
    expect(await page.getByText('Where are you?').count()).toBe(0);
    await shot(page, '01-big-screen');

    await big.getByRole('button', { name: en['host.presentClose'] }).click();
    await big.waitFor({ state: 'detached' });
    expect(await page.getByText('Where are you?').count()).toBe(0);
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

  it('says an event that is gone is not available, with the way back to the events', async () => {
    const { page } = tab;
    await page.goto(`${app.server.url}/app/events/999999/host/`);
    await page.getByText(en['host.notFound']).waitFor();
    await page.getByRole('link', { name: en['events.title'] }).first().waitFor();
  });
});
