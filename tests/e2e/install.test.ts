/**
 * The app on a phone's home screen: Chromium, with a profile of its own (an incognito context can
 * never install), finds nothing missing to install the built client, and the icons it names (and the
 * favicon.ico it does not) are the images they say they are.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server';
import { buildClient, hasChromium, launchPhoneProfile, removeDir } from './helpers';

const ready = hasChromium();

interface Manifest {
  start_url: string;
  display: string;
  icons: Array<{ src: string; sizes: string; type: string; purpose: string }>;
}

describe.skipIf(!ready)('installing the app (Chromium, a phone with a profile)', { timeout: 90_000 }, () => {
  let clientDir: string;
  let profileDir: string;
  let server: TestServer;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    clientDir = await buildClient();
    profileDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-profile-'));
    server = await startServer({ config: { clientDir } });
    context = await launchPhoneProfile(profileDir);
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    await removeDir(clientDir);
    await removeDir(profileDir);
  });

  /** The image at `src` on the server: its type and size as decoded, not as named. */
  async function image(src: string) {
    const response = await fetch(new URL(src, server.url));
    expect(response.status, src).toBe(200);
    const { format, width, height } = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    return { type: response.headers.get('content-type'), format, size: `${width}x${height}` };
  }

  it('can be installed from the landing page, and opens on the deck, standalone', async () => {
    await page.goto(`${server.url}/`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    expect(installabilityErrors).toEqual([]);
    const { url, errors } = await cdp.send('Page.getAppManifest');
    expect(errors).toEqual([]);

    const response = await fetch(url);
    expect(response.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
    // Not cached for a year as the hashed assets are: a new icon or name reaches installed phones.
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const manifest = (await response.json()) as Manifest;
    expect(manifest.start_url).toBe('/app/home/');
    expect(manifest.display).toBe('standalone');
    expect(manifest.icons.map((icon) => icon.purpose).sort()).toEqual(['any', 'any', 'maskable']);
    for (const icon of manifest.icons) {
      expect(await image(icon.src)).toEqual({ type: 'image/png', format: 'png', size: icon.sizes });
    }
  });

  it('answers /favicon.ico, asked for by browsers and link previews whatever a page names, with the icon in three sizes', async () => {
    const response = await fetch(new URL('/favicon.ico', server.url));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)$/);
    const ico = Buffer.from(await response.arrayBuffer());
    // The .ico header (reserved 0, type 1 = icon, count), then one 16-byte entry per image.
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2)]).toEqual([0, 1]);
    const sizes = [];
    for (let i = 0; i < ico.readUInt16LE(4); i += 1) {
      const entry = 6 + 16 * i;
      const png = ico.subarray(ico.readUInt32LE(entry + 12), ico.readUInt32LE(entry + 12) + ico.readUInt32LE(entry + 8));
      const { format, width, height } = await sharp(png).metadata();
      expect({ format, width, height }).toEqual({ format: 'png', width: ico.readUInt8(entry), height: ico.readUInt8(entry + 1) });
      sizes.push(width);
    }
    expect(sizes).toEqual([16, 32, 48]);
  });

  it("gives iOS's home screen an icon of its size", async () => {
    const href = await page.locator('link[rel="apple-touch-icon"]').getAttribute('href');
    expect(await image(href ?? '')).toEqual({ type: 'image/png', format: 'png', size: '180x180' });
  });
});
