/**
 * The big screen at the door, read across a room, in Spanish: on a 1366×768 laptop (the commonest
 * screen a host plugs in) and on a phone held up to the queue, a code event with a name long enough
 * to take two lines shows all of it at once (no scrolling), its "or type the code" line in type large
 * enough to read from the queue, and its QR still most of the height. Screenshots land in
 * tests/e2e/artifacts/host-fit-*.png.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { es } from '../../shared/i18n/es';
import { makeEvent } from '../helpers/events';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { entryAnimationsDone, hasChromium, keepShot, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

/** Two lines at 1366 px, three on a phone: as long a name as organizers give their nights. */
const LONG_NAME = 'Fiesta de fin de temporada del Club de Montaña Valdemoro con amigos, familia y vecinos';

const SCREENS = [
  // Type that a guest in the queue reads from a few metres: at least 24 px on a laptop at the door,
  // and the body's 19 px on a phone held up to them. The QR in px: near half a laptop's height, most
  // of a phone's width.
  { name: 'laptop', size: { width: 1366, height: 768 }, minTypeLine: 24, minQr: 0.45 * 768 },
  { name: 'projector', size: { width: 1280, height: 720 }, minTypeLine: 22, minQr: 0.45 * 720 },
  { name: 'phone', size: { width: 390, height: 844 }, minTypeLine: 19, minQr: 0.8 * 390 },
] as const;

describe.skipIf(!ready)('the big screen fits the screen it is shown on (Chromium)', { timeout: 120_000 }, () => {
  const app = appInChromium({ publicUrl: 'https://party.example.com' });
  let organizer: TestUser;

  beforeAll(async () => {
    organizer = await makeCompletedUser(app.server, { name: 'Olga' }, { firstName: 'Olga' });
  });

  async function measure(page: Page) {
    return page.getByRole('dialog').evaluate((dialog) => {
      const name = dialog.querySelector('h2')!;
      const type = dialog.querySelector('.host-type')!;
      const qr = dialog.querySelector('.host-qr img')!.getBoundingClientRect();
      const lineHeight = parseFloat(getComputedStyle(name).lineHeight);
      return {
        overflow: dialog.scrollHeight - dialog.clientHeight,
        nameLines: Math.round(name.getBoundingClientRect().height / lineHeight),
        typeLine: parseFloat(getComputedStyle(type).fontSize),
        qr: { width: qr.width, height: qr.height, bottom: qr.bottom },
        code: dialog.querySelector('.host-code')!.getBoundingClientRect().bottom,
        count: dialog.querySelector('.host-big-count')!.getBoundingClientRect().bottom,
      };
    });
  }

  it('shows a long name, the QR, the code, its line and the count without scrolling, the code line readable', async () => {
    const event = await makeEvent(app.server, organizer, { name: LONG_NAME, join_mode: 'code' });
    const { context, page } = await openPhone(app.browser, { token: organizer.token, language: 'es' });
    try {
      await page.goto(`${app.server.url}/app/events/${event.id}/host/`);
      await page.locator('.host-qr img').waitFor();
      await page.getByRole('button', { name: es['host.present'] }).click();
      const big = page.getByRole('dialog', { name: LONG_NAME });
      await big.locator('.host-qr img').waitFor();
      await big.getByText(es['host.typeCode']).waitFor();

      for (const screen of SCREENS) {
        await page.setViewportSize(screen.size);
        const seen = await measure(page);
        const label = `${screen.name} ${screen.size.width}×${screen.size.height}: ${JSON.stringify(seen)}`;
        // The case this is about: the name wraps.
        expect(seen.nameLines, label).toBeGreaterThanOrEqual(2);
        expect(seen.overflow, label).toBe(0);
        expect(seen.count, label).toBeLessThanOrEqual(screen.size.height);
        expect(seen.typeLine, label).toBeGreaterThanOrEqual(screen.minTypeLine);
        // The QR gives way, but stays square and large enough to scan from the queue.
        expect(Math.abs(seen.qr.width - seen.qr.height), label).toBeLessThan(1);
        expect(seen.qr.height, label).toBeGreaterThanOrEqual(screen.minQr);
        await entryAnimationsDone(page);
        await keepShot(page, `host-fit-${screen.name}`);
      }
    } finally {
      await context.close();
    }
  });
});
