/**
 * The app on a party's bad network, in Chromium, through a proxy of the test's own between it and
 * the built server, cut and restored as the Wi-Fi drops and comes back. A like made with no network
 * goes once the phone is back online, and makes its match. A page whose script cannot be
 * fetched while the link is down says "No connection" (never the browser's own error page from a
 * reload), tries again by hand or when the phone is back online, and opens once the server answers.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/client';
import { en } from '../../shared/i18n/en';
import { birthDateForAge, makeCompletedUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { tcpProxy } from '../helpers/tcp-proxy';
import { deckSettled, hasChromium, holdAnswers, keepShot, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

describe.skipIf(!ready)('the app on a network that drops (Chromium, 390×844)', { timeout: 90_000 }, () => {
  const app = appInChromium();
  let proxy: Awaited<ReturnType<typeof tcpProxy>>;
  beforeAll(async () => {
    proxy = await tcpProxy(app.server.url);
  });
  afterAll(() => proxy?.close());

  it('says "No connection" for a page whose script does not come, and opens it once the network is back', async () => {
    const user = await makeCompletedUser(app.server);
    const { page } = await openPhone(app.browser, { token: user.token, language: 'en' });
    let loads = 0;
    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) loads += 1;
    });
    await page.goto(`${proxy.url}/app/home/`);
    await page.getByRole('button', { name: new RegExp(en['app.userMenu']) }).click();

    // The settings page's script (not fetched yet) cannot come: the Wi-Fi is gone.
    proxy.cut();
    await page.getByRole('menuitem', { name: en['app.settings'] }).click();
    await page.getByRole('heading', { name: en['error.network'] }).waitFor();
    const retry = page.getByRole('button', { name: en['error.retry'] });
    await retry.click();
    await page.waitForTimeout(500);
    expect(await page.getByRole('heading', { name: en['error.network'] }).isVisible()).toBe(true);
    expect(loads).toBe(1);

    // Back: the phone says it is online again, and the page tries by itself.
    proxy.restore();
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    await page.getByRole('heading', { name: en['settings.title'] }).waitFor();
    expect(page.url()).toBe(`${proxy.url}/app/settings/`);
    expect(loads).toBe(2);
  });

  it('sends a like made with no network once the phone is back online, and shows the match it makes', async () => {
    const ana = await makeCompletedUser(app.server, { name: 'Ana', gender: 'female', genders_to_match: ['male'] });
    const ben = await makeCompletedUser(app.server, { name: 'Ben', gender: 'male', genders_to_match: ['female'] });
    await client(app.server.url).post('/api/matching/', { token: ben.token, json: { response: 'like', other: ana.id } });
    const { context, page } = await openPhone(app.browser, { token: ana.token, language: 'en' });
    await page.goto(`${proxy.url}/app/home/`);
    await deckSettled(page);
    const anasLikes = async () =>
      rowsOf(await app.server.app.db.execute(sql`select kind from reactions where from_user_id = ${ana.id} and to_user_id = ${ben.id}`));

    await context.setOffline(true);
    await page.getByRole('button', { name: en['deck.like'], exact: true }).click();
    await page.waitForTimeout(1000);
    expect(await anasLikes()).toEqual([]);
    expect(await page.getByText(en['deck.notSent'].split('{name}')[0]!).count()).toBe(0);

    await context.setOffline(false);
    await page.getByText(en['deck.match.title']).waitFor();
    expect(await anasLikes()).toEqual([{ kind: 'like' }]);
    await context.close();
  });
  it('says the deck is loading, never that nobody is left, until a slow server has answered', async () => {
    // Only each other in their decks (nobody else in the suite is 70): one card to see.
    const elderly = { date_of_birth: birthDateForAge(70), min_matching_age: 70, max_matching_age: 70 };
    const viewer = await makeCompletedUser(app.server, { name: 'Vera', ...elderly });
    const other = await makeCompletedUser(app.server, { name: 'Olga', ...elderly });
    const { context, page } = await openPhone(app.browser, { token: viewer.token, language: 'en' });
    await page.setViewportSize({ width: 360, height: 740 });
    const empty = page.getByText(en['deck.empty']);
    const loading = page.getByRole('status').getByText(en['deck.loading']);

    // The first page is slow to come.
    let answer = await holdAnswers(page, '**/api/users/matching-profiles/**');
    await page.goto(`${app.server.url}/app/home/`);
    await loading.waitFor();
    expect(await empty.count()).toBe(0);
    await page.unroute('**/api/users/matching-profiles/**');
    answer();
    await page.locator(`[data-testid="swipe-card"][data-card-id="${other.id}"]`).waitFor();

    // The last card decided, the deck asks for more: until the server says there are none, it is loading.
    answer = await holdAnswers(page, '**/api/users/matching-profiles/**');
    const asked = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/users/matching-profiles/');
    await page.keyboard.press('ArrowLeft');
    await asked;
    await page.getByTestId('swipe-card').waitFor({ state: 'detached' });
    await keepShot(page, 'bad-network-deck-waiting');
    expect(await loading.isVisible()).toBe(true);
    expect(await empty.count()).toBe(0);
    answer();
    await empty.waitFor();
    await context.close();
  });
});
