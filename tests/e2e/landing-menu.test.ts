/**
 * The landing page's side menu on a phone (390×844, Spanish), from the keyboard: a modal while it is
 * open. The focus goes into it, Tab does not leave it for the page behind, and closing it (Escape or
 * its close button) gives the focus back to the button that opened it.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { es } from '../../shared/i18n/es';
import { hasChromium, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

/** Where the focus is: in the menu, on the page behind it, or nowhere in the page (body). */
const focusIsIn = (page: Page) =>
  page.evaluate(() => {
    const active = document.activeElement;
    if (!active || active === document.body) return 'nowhere';
    return active.closest('#side-menu') ? 'menu' : `page: ${active.outerHTML.slice(0, 80)}`;
  });

describe.skipIf(!ready)('the landing page’s side menu from the keyboard (Chromium, 390×844)', { timeout: 90_000 }, () => {
  const app = appInChromium();
  let page: Page;
  const opener = () => page.getByRole('button', { name: es['nav.openMenu'] });
  const isOpener = () => opener().evaluate((button) => button === document.activeElement);
  const closeButton = () => page.locator('#side-menu').getByRole('button', { name: es['nav.closeMenu'] });

  /** Opens the menu as a keyboard does, and waits until its close button has the focus. */
  async function openFromKeyboard() {
    await opener().focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => closeButton().evaluate((button) => button === document.activeElement)).toBe(true);
  }

  beforeAll(async () => {
    ({ page } = await openPhone(app.browser));
    await page.goto(`${app.server.url}/`);
    await page.getByRole('heading', { level: 1, name: es['landing.hero.title'] }).waitFor();
  });

  it('takes the focus in when it opens and keeps it there while Tab goes round', async () => {
    await openFromKeyboard();
    const stops: string[] = [];
    // The menu has 7 stops (close, 3 sections, log in, 2 languages): 16 Tabs forward go round it twice.
    for (let press = 0; press < 16; press++) {
      await page.keyboard.press('Tab');
      stops.push(await focusIsIn(page));
    }
    for (let press = 0; press < 16; press++) {
      await page.keyboard.press('Shift+Tab');
      stops.push(await focusIsIn(page));
    }
    // Once a round it passes through the browser's own controls ("nowhere" in the page), as a native modal does.
    expect(stops.filter((stop) => stop.startsWith('page'))).toEqual([]);
    expect(stops).toContain('menu');
    await page.keyboard.press('Escape');
  });

  it('gives the focus back to "Abrir menú" when Escape closes it, from anywhere in the menu', async () => {
    await openFromKeyboard();
    await page.locator('#side-menu').getByRole('button', { name: 'Español' }).focus();
    await page.keyboard.press('Escape');
    await expect.poll(() => opener().getAttribute('aria-expanded')).toBe('false');
    expect(await isOpener()).toBe(true);
  });

  it('gives the focus back to "Abrir menú" when its close button closes it', async () => {
    await openFromKeyboard();
    await closeButton().click();
    await expect.poll(() => opener().getAttribute('aria-expanded')).toBe('false');
    expect(await isOpener()).toBe(true);
  });

  it('shows nothing of itself while closed, not even its shadow down the right edge', async () => {
    const menu = page.locator('#side-menu');
    await expect.poll(() => menu.isVisible()).toBe(false);
    await openFromKeyboard();
    expect(await menu.isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    // Hidden once it has slid out.
    await expect.poll(() => menu.isVisible()).toBe(false);
  });
});
