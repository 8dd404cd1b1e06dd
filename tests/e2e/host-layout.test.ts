/**
 * The host screen on a laptop keeps its layout as its answers come.
 * - Its event slow to come: the page waits in the width of the door's layout it loads into. It waited
 *   in the phone's narrow column and widened from 560 to 1069 px as the event came (a layout shift of
 *   0.146).
 * - A party on one laptop (`npm start`, no PUBLIC_URL), its host screen opened at 127.0.0.1: the screen
 *   says the code points at this computer. The QR's box shows first, empty, while its answer comes; the
 *   warning came with the answer, above the box, and took the QR 134 px down as it was drawn. The QR
 *   now stays where its box was. Screenshot in tests/e2e/artifacts/host-local-door.png.
 */
import { describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import { format } from '../../shared/i18n/format';
import { makeEvent } from '../helpers/events';
import { makeCompletedUser } from '../helpers/factories';
import { hasChromium, holdAnswers, keepShot, openLaptop } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

describe.skipIf(!ready)('the host screen on a laptop, as its answers come (Chromium)', { timeout: 90_000 }, () => {
  const app = appInChromium();
  const openAsOrganizer = async () => {
    const organizer = await makeCompletedUser(app.server, { name: 'Olga' }, { firstName: 'Olga' });
    const event = await makeEvent(app.server, organizer, { name: 'Kitchen Disco', join_mode: 'code' });
    const { page } = await openLaptop(app.browser, { token: organizer.token, language: 'en' });
    return { event, page };
  };

  it('keeps its column’s width as the event comes', async () => {
    const { event, page } = await openAsOrganizer();
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

  it('draws the QR where its box showed, with the warning that phones cannot open it', async () => {
    const { event, page } = await openAsOrganizer();
    const answer = await holdAnswers(page, new RegExp(`/api/events/${event.id}/qr/$`));
    await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
    const waiting = await page.locator('.host-door .host-qr').boundingBox();

    answer();
    await page.locator('.host-door .host-qr img').waitFor();
    await page.locator('.host-door').getByText(format(en['host.qrLocal'], { host: new URL(app.server.url).host })).waitFor();
    const drawn = await page.locator('.host-door .host-qr').boundingBox();
    expect(drawn!.y).toBe(waiting!.y);
    await keepShot(page, 'host-local-door');
  });
});
