/**
 * The host screen opened on a laptop, its event slow to come: the page waits in the width of the
 * door's layout it loads into. It waited in the phone's narrow column and widened from 560 to 1069 px
 * as the event came (a layout shift of 0.146).
 */
import { describe, expect, it } from 'vitest';
import { makeEvent } from '../helpers/events';
import { makeCompletedUser } from '../helpers/factories';
import { hasChromium, holdAnswers, openLaptop } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

describe.skipIf(!ready)('the host screen waiting for its event on a laptop (Chromium)', { timeout: 90_000 }, () => {
  const app = appInChromium();

  it('keeps its column’s width as the event comes', async () => {
    const organizer = await makeCompletedUser(app.server, { name: 'Olga' }, { firstName: 'Olga' });
    const event = await makeEvent(app.server, organizer, { name: 'Kitchen Disco', join_mode: 'code' });
    const { page } = await openLaptop(app.browser, { token: organizer.token, language: 'en' });
    const answer = await holdAnswers(page, /\/api\/events\/mine\//);
    // Asked for as the screen shows its wait (an effect of its first render).
    const asked = page.waitForRequest(/\/api\/events\/mine\//);
    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    await asked;
    const waiting = await page.locator('.app-main').boundingBox();

    answer();
    await page.locator('.host-door').waitFor();
    const loaded = await page.locator('.app-main').boundingBox();
    expect(loaded!.width).toBe(waiting!.width);
  });
});
