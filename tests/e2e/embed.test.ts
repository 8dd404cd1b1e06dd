/**
 * The app inside another site's page: the sign-in page in a frame, whose Back tells the page around
 * it (`postMessage('back')`), for the sites EMBED_ORIGINS names and no other. Each "site" is a page
 * served from a loopback address of its own (127.0.0.2, 127.0.0.3): another origin than the app's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { es } from '../../shared/i18n/es';
import { hasChromium, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

/** A site on `host` whose page frames the app's `/login/` and keeps what the frame posts to it. */
async function siteFraming(host: string, appUrl: () => string): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(`<!doctype html><title>Venue</title>
      <script>window.posted = []; addEventListener('message', (event) => window.posted.push(event.data));</script>
      <iframe src="${appUrl()}/login/" width="390" height="700"></iframe>`);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}` };
}

describe.skipIf(!ready)('the app framed by another site (Chromium)', { timeout: 60_000 }, () => {
  let allowed: { server: Server; url: string };
  let other: { server: Server; url: string };
  beforeAll(async () => {
    allowed = await siteFraming('127.0.0.2', () => app.server.url);
    other = await siteFraming('127.0.0.3', () => app.server.url);
  });
  const app = appInChromium(() => ({ embedOrigins: [allowed.url] }));
  afterAll(async () => {
    for (const site of [allowed, other]) await new Promise((resolve) => site?.server.close(resolve));
  });

  it('shows the sign-in page in a site EMBED_ORIGINS names, and its Back tells the page around it', async () => {
    const { context, page } = await openPhone(app.browser);
    await page.goto(allowed.url);
    const frame = page.frameLocator('iframe');
    await frame.getByRole('button', { name: es['auth.back'] }).click();
    await page.waitForFunction(() => (window as unknown as { posted: unknown[] }).posted.length > 0);
    expect(await page.evaluate(() => (window as unknown as { posted: unknown[] }).posted)).toEqual(['back']);
    // The frame stays where it was: going back is the page around it's business.
    expect(page.frames().find((each) => each !== page.mainFrame())?.url()).toBe(`${app.server.url}/login/`);
    await context.close();
  });

  it('is refused a frame by any other site', async () => {
    const { context, page } = await openPhone(app.browser);
    const refused = new Promise<string>((resolve) => page.on('console', (message) => message.text().includes('frame-ancestors') && resolve(message.text())));
    await page.goto(other.url);
    expect(await refused).toContain(app.server.url);
    expect(await page.frameLocator('iframe').getByRole('button').count()).toBe(0);
    await context.close();
  });
});
