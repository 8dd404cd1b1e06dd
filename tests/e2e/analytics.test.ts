/**
 * The analytics events the app itself records, in Debian's Chromium against the real server: what the
 * moderators' daily counts (`GET /api/analytics/summary/`) are made of.
 */
import { and, eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { analyticsEvents } from '../../server/db/schema';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { makeCompletedUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { waitUntil } from '../helpers/socket';
import { hasChromium, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

/** The phone locked and unlocked: the page hidden, then shown again. */
async function comeBack(page: Page) {
  for (const state of ['hidden', 'visible']) {
    await page.evaluate((value) => {
      Object.defineProperty(document, 'visibilityState', { value, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    }, state);
  }
}

describe.skipIf(!ready)('the analytics events the app records (Chromium, 390×844)', { timeout: 90_000 }, () => {
  const app = appInChromium();

  it('records app_opened once a UTC day: again when a phone brings the app back on a later day', async () => {
    const user = await makeCompletedUser(app.server, { name: 'Abre' });
    const { page } = await openPhone(app.browser, { token: user.token, language: 'es' });
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/analytics/events/')) sent.push((request.postDataJSON() as { name: string }).name);
    });
    const opened = async () =>
      (await app.server.app.db.select().from(analyticsEvents).where(and(eq(analyticsEvents.userId, user.id), eq(analyticsEvents.name, 'app_opened'))))
        .length;

    // Its clock the test's from the start, at noon (UTC), so that a day passes at once, and only then.
    const noon = new Date(`${new Date().toISOString().slice(0, 10)}T12:00:00Z`).getTime();
    await page.clock.install({ time: noon });
    await page.goto(`${app.server.url}/app/home/`);
    await waitUntil(async () => (await opened()) === 1, 10_000, 'the app opened');
    // Brought back the same day: nothing more.
    await comeBack(page);
    // And the next day, with the page never reloaded (a phone keeps it in memory for days).
    await page.clock.setSystemTime(noon + 86_400_000);
    await comeBack(page);
    await waitUntil(async () => (await opened()) === 2, 10_000, 'the app opened the next day');
    expect(sent.filter((name) => name === 'app_opened')).toEqual(['app_opened', 'app_opened']);
  });

  it('counts a match opened with no network once the network is back, and once only', async () => {
    const ana = await makeCompletedUser(app.server, { name: 'Ana', gender: 'female', genders_to_match: ['male'] });
    const ben = await makeCompletedUser(app.server, { name: 'Ben', gender: 'male', genders_to_match: ['female'] });
    const api = client(app.server.url);
    await api.post('/api/matching/', { token: ben.token, json: { response: 'like', other: ana.id } });
    const conversationId = (await api.post('/api/matching/', { token: ana.token, json: { response: 'like', other: ben.id } })).body.conversation_id;
    const { context, page } = await openPhone(app.browser, { token: ana.token, language: 'en' }, { serviceWorkers: 'allow' });
    const opened = async () =>
      (await app.server.app.db.select().from(analyticsEvents).where(and(eq(analyticsEvents.userId, ana.id), eq(analyticsEvents.name, 'match_opened'))))
        .length;

    await page.goto(`${app.server.url}/app/matches/`);
    const benLink = page.getByRole('link', { name: /Ben/ }).first();
    await benLink.waitFor();
    // The chat's script, not loaded yet, comes from the service worker's store once it controls the page.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      while (!navigator.serviceWorker.controller) await new Promise((resolve) => setTimeout(resolve, 50));
    });
    await context.setOffline(true);
    await page.getByText(en['app.noNetwork'], { exact: true }).waitFor();
    // The new match, opened from her list with no network: written in as usual.
    await benLink.click();
    await page.waitForURL(`**/app/chat/${conversationId}**`);
    await page.getByPlaceholder(en['chat.placeholder']).waitFor();
    expect(await opened()).toBe(0);

    await context.setOffline(false);
    await page.locator('.offline-banner').waitFor({ state: 'detached' });
    await waitUntil(async () => (await opened()) === 1, 10_000, 'the match opened offline counted');
    // Back to the list and into the chat again, online: the same open, not another.
    await page.goBack();
    await page.waitForURL('**/app/matches/**');
    await page.getByRole('link', { name: /Ben/ }).first().click();
    await page.waitForURL(`**/app/chat/${conversationId}**`);
    await page.waitForLoadState('networkidle');
    expect(await opened()).toBe(1);
    await context.close();
  });

  it('counts a login on the login page once, sent by the app it opens (the first page only keeps it)', async () => {
    const user = await makeCompletedUser(app.server, { name: 'Entra' });
    const { context, page } = await openPhone(app.browser);
    const logins = async () =>
      (await app.server.app.db.select().from(analyticsEvents).where(and(eq(analyticsEvents.userId, user.id), eq(analyticsEvents.name, 'user_logged_in'))))
        .length;

    await page.goto(`${app.server.url}/login/`);
    await page.getByLabel(es['auth.email']).fill(user.email);
    await page.getByLabel(es['auth.password']).fill(user.password);
    await page.getByRole('button', { name: es['login.submit'] }).click();
    await page.waitForURL(`${app.server.url}/app/home/`);
    await waitUntil(async () => (await logins()) === 1, 10_000, 'the login counted');
    await page.waitForLoadState('networkidle');
    expect(await logins()).toBe(1);
    await context.close();
  });
});
