/**
 * A page inside the app opened cold (a fresh browser, nothing stored, no service worker): its chunks
 * come in as few rounds as the app's chunks allow, not each one asked for once the one before it had
 * come and run. A round is counted from the browser's own timings of each chunk (Resource Timing): a
 * chunk is in the round after the last round of those that had come in full before it was asked for
 * (the first, when none had). Every answer takes at least 300 ms (Chromium's network emulation: a phone's round trip on a
 * slow network), so that chunks asked for together overlap and a round shows plainly however busy the
 * machine is. The landing and login pages still fetch none of the app's chunks.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { es } from '../../shared/i18n/es';
import { makeCompletedUser } from '../helpers/factories';
import { hasChromium, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

const ROUND_TRIP_MS = 300;

/**
 * The built files the page fetched, each with its round. The toasts' chunk and stylesheet are left
 * out: App.tsx mounts them once the browser is first idle, which may fall in any round.
 */
async function chunkRounds(page: Page): Promise<Map<string, number>> {
  const chunks = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((entry) => entry as PerformanceResourceTiming)
      .map((entry) => ({ file: new URL(entry.name).pathname, start: entry.startTime, end: entry.responseEnd }))
      .filter((entry) => entry.file.startsWith('/assets/') && !entry.file.startsWith('/assets/Toaster-'))
      .sort((a, b) => a.start - b.start),
  );
  const rounds = new Map<string, number>();
  for (const chunk of chunks) {
    const before = chunks.filter((other) => other.end <= chunk.start).map((other) => rounds.get(other.file) ?? 0);
    rounds.set(chunk.file, 1 + Math.max(0, ...before));
  }
  return rounds;
}

/** The round of the one chunk whose file name starts with `name` and a hash (`app-more-1a2b3c4d.js`). */
function roundOf(rounds: Map<string, number>, name: string, extension = 'js'): number {
  const found = [...rounds].filter(([file]) => new RegExp(`^/assets/${name}-[0-9a-f]+\\.${extension}$`).test(file));
  expect(found, `one chunk named ${name}`).toHaveLength(1);
  return found[0]![1];
}

describe.skipIf(!ready)('a page inside the app opened cold (Chromium, 390×844)', { timeout: 90_000 }, () => {
  const app = appInChromium();

  it('fetches the settings page’s chunks, its stylesheet and its copy by the third round, and all in four', async () => {
    const user = await makeCompletedUser(app.server);
    const { context, page } = await openPhone(app.browser, { token: user.token, language: 'es' });
    const devtools = await context.newCDPSession(page);
    await devtools.send('Network.enable');
    await devtools.send('Network.emulateNetworkConditions', { offline: false, latency: ROUND_TRIP_MS, downloadThroughput: -1, uploadThroughput: -1 });

    await page.goto(`${app.server.url}/app/settings/`);
    await page.getByRole('heading', { name: es['settings.title'] }).waitFor();
    await page.waitForLoadState('networkidle');
    const rounds = await chunkRounds(page);
    const timeline = [...rounds].map(([file, round]) => `${round} ${file}`).join('\n');

    // The entry, then AppRoot's chunk with those it imports and the app's copy (Spanish here).
    expect(roundOf(rounds, 'index'), timeline).toBe(1);
    expect(roundOf(rounds, 'AppRoot'), timeline).toBe(2);
    expect(roundOf(rounds, 'es-app'), timeline).toBe(2);
    // Then the page (the secondary pages' chunk) with its stylesheet and the chunks it imports.
    expect(roundOf(rounds, 'app-more'), timeline).toBeLessThanOrEqual(3);
    expect(roundOf(rounds, 'account', 'css'), timeline).toBeLessThanOrEqual(3);
    // The events pages' copy last, asked for as their code (in the page's chunk) runs; the settings
    // page does not wait for it.
    expect(Math.max(...rounds.values()), timeline).toBeLessThanOrEqual(4);
    await context.close();
  });

  it('leaves the app’s chunks and its copy out of the landing and login pages', async () => {
    for (const [path, heading] of [
      ['/', es['landing.hero.title']],
      ['/login/', es['login.title']],
    ]) {
      const { context, page } = await openPhone(app.browser);
      await page.goto(`${app.server.url}${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await page.waitForLoadState('networkidle');
      const files = [...(await chunkRounds(page)).keys()];
      expect(files.filter((file) => /^\/assets\/(AppRoot|app|app-more|e[ns]-app)-[0-9a-f]+\.js$/.test(file)), path).toEqual([]);
      await context.close();
    }
  });
});
