/**
 * The analytics events the app itself records, in Debian's Chromium against the real server: what the
 * moderators' daily counts (`GET /api/analytics/summary/`) are made of.
 */
import { and, eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { analyticsEvents } from '../../server/db/schema';
import { makeCompletedUser } from '../helpers/factories';
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
});
