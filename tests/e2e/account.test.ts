/**
 * The account in Debian's Chromium on a phone-sized screen, against the real server and a real SMTP
 * server: "Forgot password?" → the e-mail → the reset page → signed in; the verification banner and
 * link; the user loaded again after a failed first try; settings → delete account with its confirm
 * step. Screenshots land in tests/e2e/artifacts/ (see keepShot).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../server/db/schema';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { makeCompletedUser, makeUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { startSmtpServer, type TestSmtpServer } from '../helpers/mail';
import { makeModerator } from '../helpers/safety';
import { entryAnimationsDone, hasChromium, holdAnswers, keepShot, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

/** The link of a message's text part that leads to `path`. */
const linkIn = (text: string, pathname: string) => text.split('\n').find((line) => line.includes(`${pathname}?token=`))!.trim();

describe.skipIf(!ready)('the account end to end (Chromium, 390×844)', { timeout: 90_000 }, () => {
  // Started before the app, whose config names it; stopped after it.
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp?.close();
  });
  const app = appInChromium(() => ({ mail: { smtpUrl: smtp.url, from: 'Eventmatch <no-reply@eventmatch.test>' } }));

  const shot = keepShot;
  async function phone(session?: { token: string; language: 'en' | 'es' }, options?: Parameters<typeof openPhone>[2]) {
    const { page } = await openPhone(app.browser, session, options);
    page.on('pageerror', (error) => console.error('page error:', error));
    return page;
  }

  it('"Forgot password?" → the e-mail → the reset page → signed in (in Spanish, the default)', async () => {
    const user = await makeCompletedUser(app.server, { name: 'Olvido' }, { firstName: 'Olvido' });
    await smtp.nextMailTo(user.email); // the verification e-mail of the registration
    const page = await phone();

    await page.goto(`${app.server.url}/login/`);
    await page.getByLabel(es['auth.email']).fill(user.email);
    await page.getByRole('link', { name: es['login.forgot'] }).click();
    await page.waitForURL('**/forgot-password/');
    await page.getByRole('heading', { name: es['forgot.title'] }).waitFor();
    // The address typed on the login page came along, and not in the page's address.
    expect(await page.getByLabel(es['auth.email']).inputValue()).toBe(user.email);
    expect(page.url()).toBe(`${app.server.url}/forgot-password/`);
    await shot(page, 'account-01-forgot-password');
    // Back returns to the login page it came from, not to the landing page; and Forgot again.
    await page.getByRole('button', { name: es['auth.back'] }).click();
    await page.waitForURL('**/login/');
    await page.getByRole('heading', { name: es['login.title'] }).waitFor();
    await page.getByRole('link', { name: es['login.forgot'] }).click();
    await page.waitForURL('**/forgot-password/');
    await page.getByLabel(es['auth.email']).fill(user.email);
    await page.getByRole('button', { name: es['forgot.submit'] }).click();
    await page.getByText(es['forgot.sent']).waitFor();
    await shot(page, 'account-02-forgot-password-sent');

    const mail = await smtp.nextMailTo(user.email);
    expect(mail.subject).toBe('Restablece tu contraseña de Eventmatch');
    const link = linkIn(mail.text, '/reset-password');
    expect(link.startsWith(`${app.server.url}/reset-password?token=`)).toBe(true);

    await page.goto(link);
    await page.getByRole('heading', { name: es['reset.title'] }).waitFor();
    await page.getByLabel(es['reset.password'], { exact: true }).fill('Noche-de-Verano-26');
    await page.getByLabel(es['reset.password2']).fill('Noche-de-Otono-26');
    await page.getByRole('button', { name: es['reset.submit'] }).click();
    // The server's field error, in Spanish.
    await page.getByText('Las dos contraseñas no coinciden.').waitFor();
    await shot(page, 'account-03-reset-password-mismatch');

    await page.getByLabel(es['reset.password2']).fill('Noche-de-Verano-26');
    await page.getByRole('button', { name: es['reset.submit'] }).click();
    await page.waitForURL('**/app/home/');
    await page.getByRole('button', { name: new RegExp(es['app.userMenu']) }).waitFor();
    await page.getByText(es['reset.done']).waitFor();
    await shot(page, 'account-04-reset-signed-in');

    // Signed in with the new password's session; the old password and session are dead.
    const token = await page.evaluate(() => localStorage.getItem('auth_token'));
    expect((await client(app.server.url).get('/api/users/me/', { token: token! })).body).toMatchObject({ id: user.id, email_verified: true });
    expect((await client(app.server.url).get('/api/users/me/', { token: user.token })).status).toBe(401);
    expect((await client(app.server.url).post('/api/auth/', { json: { username: user.email, password: user.password } })).status).toBe(400);
    // The spent link's page gave its place to the deck: Back goes to the page before it.
    await page.goBack();
    await page.waitForURL('**/forgot-password/');
    expect(await page.getByText(es['reset.invalid']).count()).toBe(0);

    // The link again, spent: the page says so as it opens, and asks for no password.
    const later = await phone();
    await later.goto(link);
    await later.getByRole('alert').getByText(es['reset.invalid']).waitFor();
    expect(await later.getByLabel(es['reset.password'], { exact: true }).count()).toBe(0);
    // The page's one way on, a thumb's size: it was a link 16 px high within the error's line.
    const askAgain = later.getByRole('link', { name: es['reset.askAgain'] });
    await askAgain.waitFor();
    expect((await askAgain.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await shot(later, 'account-04b-reset-link-spent');
  });

  it('shows the verification banner with Resend, and the e-mail’s link verifies the address', async () => {
    const user = await makeCompletedUser(app.server, { name: 'Vera' }, { firstName: 'Vera' });
    await smtp.nextMailTo(user.email);
    const page = await phone({ token: user.token, language: 'en' });

    await page.goto(`${app.server.url}/app/home/`);
    await page.getByText(en['app.verifyBanner'].replace('{email}', user.email)).waitFor();
    await shot(page, 'account-05-verify-banner');
    await page.getByRole('button', { name: en['app.verifyResend'] }).click();
    await page.getByText(en['app.verifySent']).waitFor();

    const mail = await smtp.nextMailTo(user.email);
    expect(mail.subject).toBe('Confirm your e-mail address for Eventmatch');
    // The first try gets no answer: the link is not spent, and says so; Try again confirms it.
    let tries = 0;
    await page.route('**/api/auth/verify-email/', (route) => (++tries === 1 ? route.abort('internetdisconnected') : route.continue()));
    await page.goto(linkIn(mail.text, '/verify-email'));
    await page.getByText(en['verify.unreachable']).waitFor();
    await page.getByRole('button', { name: en['verify.retry'] }).click();
    await page.getByText(en['verify.done']).waitFor();
    expect(tries).toBe(2);
    await shot(page, 'account-06-verified');
    await page.getByRole('link', { name: en['verify.toApp'] }).click();
    await page.waitForURL('**/app/home/');
    await page.getByRole('button', { name: new RegExp(en['app.userMenu']) }).waitFor();
    expect(await page.getByText(en['app.verifySent']).count()).toBe(0);
    expect(await page.locator('.verify-banner').count()).toBe(0);

    // The app opened again, the server slow to say who is signed in: the device keeps the user as the
    // link's page read them, verified, and no banner comes before the answer to go with it.
    const answer = await holdAnswers(page, '**/api/users/me/');
    await page.reload();
    await page.locator('.bottom-nav').waitFor();
    expect(await page.locator('.verify-banner').count()).toBe(0);
    answer();
    await page.unroute('**/api/users/me/');

    // The same link again (the e-mail opened once more): spent, but there is nothing left to do.
    await page.goto(linkIn(mail.text, '/verify-email'));
    await page.getByText(en['verify.already']).waitFor();
    expect(await page.getByText(en['verify.invalid']).count()).toBe(0);
    expect(await page.getByRole('button', { name: en['verify.resend'] }).count()).toBe(0);
    await page.getByRole('link', { name: en['verify.toApp'] }).waitFor();
  });

  it('keeps another account’s long address within a 320 px phone, on the reset and verification links’ pages', async () => {
    // Addresses as people have them: a name or two and a surname, longer than a 320 px line holds.
    const stamp = Date.now().toString(36);
    const me = await makeUser(app.server, { email: `maria.fernanda.${stamp}@example.com` });
    const them = await makeUser(app.server, { email: `lena.hoffmann.schneider.${stamp}@example.com` });
    await smtp.nextMailTo(me.email);
    const verification = await smtp.nextMailTo(them.email);
    await client(app.server.url).post('/api/auth/password-reset/', { json: { email: them.email } });
    const reset = await smtp.nextMailTo(them.email);
    const page = await phone({ token: me.token, language: 'es' });
    await page.setViewportSize({ width: 320, height: 740 });
    const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

    // Opened where another account is signed in (a shared phone): both addresses are said.
    await page.goto(linkIn(reset.text, '/reset-password'));
    await page.getByText(es['reset.otherAccount'].replace('{me}', me.email).replace('{email}', them.email)).waitFor();
    await shot(page, 'account-06b-reset-other-account-320');
    expect(await sideways()).toBe(0);

    await page.goto(linkIn(verification.text, '/verify-email'));
    await page.getByText(es['verify.doneOther'].replace('{email}', them.email)).waitFor();
    expect(await sideways()).toBe(0);
  });

  describe('when the user cannot be loaded at first (no network at the door)', () => {
    /**
     * A new user's phone opening the app while the next `failures` loads of the user fail as a dropped
     * network does; resolves once they have failed, with the count of every load asked for. The page's
     * clock is Playwright's (it runs as a real one does): once the socket has connected, and with it
     * asked for the user if a load had failed by then, the timed tries are moved on to, not waited out.
     * On a slow machine a timed try may come first, and the connect's ask then be the load let through.
     * By `fastForward`, which fires the timers due in the time it skips, and no timer set as it does:
     * the try it fires fails after it has skipped, and the next try is timed from there, as on a phone.
     */
    async function openWithFailedUserLoads(name: string, failures: number) {
      const user = await makeCompletedUser(app.server, { name }, { firstName: name });
      await smtp.nextMailTo(user.email);
      const page = await phone({ token: user.token, language: 'en' });
      await page.clock.install();
      let aborted = 0;
      let loads = 0;
      let letThrough = 0;
      await page.route('**/api/users/me/', async (route) => {
        loads += 1;
        if (aborted === failures) {
          letThrough += 1;
          return route.continue();
        }
        aborted += 1;
        await route.abort('internetdisconnected');
      });
      // Said as the page takes a failure in, when it sets the next try's timer (session.ts's loadUser).
      let failed = 0;
      page.on('console', (message) => message.text().startsWith('Could not load the current user') && (failed += 1));
      const socket = page.waitForEvent('websocket');
      // Its connect's first words: asked for who is online, just after the user (realtime.ts's onConnect).
      const connected = socket.then((ws) => ws.waitForEvent('framesent', ({ payload }) => payload.toString().includes('"presence:list"')));
      await page.goto(`${app.server.url}/app/home/`);
      await connected;
      // Each load asked for has failed or been let through: the next one is a timed try, at most 4 s on (1, 2, 4 s).
      const until = (done: () => boolean) => expect.poll(done, { interval: 20, timeout: 15_000 }).toBe(true);
      const settled = () => until(() => loads > 0 && loads === failed + letThrough);
      const nextTry = async () => {
        const before = loads;
        await page.clock.fastForward(4000);
        await until(() => loads > before);
      };
      for (await settled(); failed < failures; await settled()) await nextTry();
      // Shown only once the user is known (the e-mail is not verified yet).
      const banner = page.getByText(en['app.verifyBanner'].replace('{email}', user.email));
      return { user, ws: await socket, banner, loads: () => loads, clock: page.clock };
    }

    it('tries again by itself and shows what depends on the user, without a reload', async () => {
      const { banner, clock, loads } = await openWithFailedUserLoads('Door', 2);
      // The timed try after the second failure, unless the socket's connect has asked already.
      await clock.fastForward(4000);
      await banner.waitFor();
      // Two failures, then the one that answered: retried, not hammered.
      expect(loads()).toBe(3);
    });

    it('asks again at once when the socket connects, not at the next timed try', async () => {
      // Four failures: the tries wait 1, 2 and 4 s after each (the socket's first connect may ask
      // before a timed one), so the next timed try is 8 s after the last failure.
      const { user, clock, ws, banner, loads } = await openWithFailedUserLoads('Back', 4);
      // The network is back: the server drops the socket, the tab connects again (after 1 s) and asks.
      const closed = ws.waitForEvent('close');
      app.server.app.io.in(`user:${user.id}`).disconnectSockets(true);
      await closed;
      // Its second of waiting before it connects again moved on to; the timed try stays 8 s away, as the
      // clock runs on as a real one does.
      await clock.fastForward(1000);
      await banner.waitFor({ timeout: 5000 });
      expect(loads()).toBe(5);
    });
  });

  describe('two tabs of one browser', () => {
    async function twoTabs() {
      const user = await makeCompletedUser(app.server);
      const first = await phone({ token: user.token, language: 'en' });
      const second = await first.context().newPage();
      second.setDefaultTimeout(15_000);
      for (const tab of [first, second]) await tab.goto(`${app.server.url}/app/home/`);
      await first.getByRole('navigation', { name: en['app.nav.label'] }).waitFor();
      return { user, first, second };
    }

    it('stay signed in when one changes the password: the other follows with the new session', async () => {
      const { user, first, second } = await twoTabs();
      await second.goto(`${app.server.url}/app/settings/`);
      const reloaded = first.waitForEvent('load');
      await second.getByLabel(en['settings.password.current']).fill(user.password);
      await second.getByLabel(en['settings.password.new'], { exact: true }).fill('A-new-quiet-party-1');
      await second.getByLabel(en['settings.password.repeat']).fill('A-new-quiet-party-1');
      await second.getByRole('button', { name: en['settings.password.submit'] }).click();
      await second.getByText(en['settings.password.done']).waitFor();
      // The form stays, ready for another change.
      expect(await second.getByRole('button', { name: en['settings.password.submit'] }).isEnabled()).toBe(true);

      // The first tab started again with the new token, and neither tab lost it.
      await reloaded;
      await first.getByRole('navigation', { name: en['app.nav.label'] }).waitFor();
      const token = await second.evaluate(() => localStorage.getItem('auth_token'));
      expect(token).not.toBe(user.token);
      expect(await first.evaluate(() => localStorage.getItem('auth_token'))).toBe(token);
      expect((await client(app.server.url).get('/api/users/me/', { token: token! })).status).toBe(200);
      for (const tab of [first, second]) {
        await tab.reload();
        await tab.getByRole('navigation', { name: en['app.nav.label'] }).waitFor();
        expect(new URL(tab.url()).pathname).not.toBe('/login/');
      }
    });

    it('both leave the app when one logs out', async () => {
      const { first, second } = await twoTabs();
      await second.getByRole('link', { name: en['app.logout'] }).click();
      await second.getByRole('dialog', { name: en['app.logoutAsk.title'] }).getByRole('button', { name: en['app.logoutAsk.confirm'] }).click();
      await first.waitForURL((url) => url.pathname === '/login/');
      await second.waitForURL((url) => !url.pathname.startsWith('/app'));
    });
  });

  it('leads from settings to the blocked people', async () => {
    const user = await makeCompletedUser(app.server, { name: 'Blocker' });
    const pest = await makeCompletedUser(app.server, { name: 'Pesado' });
    expect((await client(app.server.url).post(`/api/users/${pest.id}/block/`, { token: user.token })).status).toBe(204);
    const page = await phone({ token: user.token, language: 'es' });

    await page.goto(`${app.server.url}/app/settings/`);
    await page.getByRole('link', { name: es['settings.blocked.open'] }).click();
    await page.waitForURL('**/app/settings/blocked/');
    await page.getByText('Pesado').waitFor();
  });

  it('turns the app dark from settings on a light phone, from the first paint on, and back to the phone’s own', async () => {
    const user = await makeCompletedUser(app.server, { name: 'Noche' });
    const page = await phone({ token: user.token, language: 'es' });
    const refused: string[] = [];
    page.on('console', (message) => message.text().includes('Content Security Policy') && refused.push(message.text()));
    await page.emulateMedia({ colorScheme: 'light' });
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme);

    await page.goto(`${app.server.url}/app/settings/`);
    await page.getByRole('heading', { name: es['settings.appearance.title'] }).waitFor();
    expect([await theme(), await background()]).toEqual(['light', 'rgb(255, 250, 245)']);
    const option = (key: 'system' | 'light' | 'dark') => page.getByRole('button', { name: es[`settings.appearance.${key}`], exact: true });
    expect(await option('system').getAttribute('aria-pressed')).toBe('true');

    await option('dark').click();
    expect([await theme(), await background()]).toEqual(['dark', 'rgb(18, 16, 15)']);
    expect(await option('dark').getAttribute('aria-pressed')).toBe('true');
    await shot(page, 'account-07b-settings-dark');

    // Set before the app's own script runs: the first paint of the next load is dark already.
    await page.reload();
    expect(await page.evaluate(() => document.readyState === 'complete' && document.documentElement.dataset.theme)).toBe('dark');
    // Kept through a logout: a choice about the phone, like the language.
    await page.evaluate(() => localStorage.setItem('left-by-the-session', 'x'));
    await page.goto(`${app.server.url}/logout/`);
    await page.waitForURL(`${app.server.url}/`);
    expect(await page.evaluate(() => [localStorage.getItem('theme'), localStorage.getItem('left-by-the-session'), localStorage.getItem('auth_token')])).toEqual(['dark', null, null]);
    expect(await theme()).toBe('dark');

    // Automatic follows the phone, as it changes.
    await page.evaluate(() => {
      localStorage.removeItem('theme');
      window.dispatchEvent(new Event('themechange'));
    });
    expect(await theme()).toBe('light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(theme).toBe('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(theme).toBe('light');
    expect(refused).toEqual([]);
  });

  it('shows moderators the daily activity chart on /app/admin/, and nobody else', async () => {
    // The UTC days the two sign-ups fell on (one, unless a midnight came between them): the table,
    // read after, holds them, though a midnight before it would make them yesterday's.
    const utcDay = () => new Date().toISOString().slice(0, 10);
    const signedUpOn = new Set([utcDay()]);
    const moderator = await makeModerator(app.server);
    await makeCompletedUser(app.server);
    signedUpOn.add(utcDay());
    const page = await phone({ token: moderator.token, language: 'en' });

    await page.goto(`${app.server.url}/app/home/`);
    await page.getByRole('button', { name: new RegExp(en['app.userMenu']) }).click();
    await page.getByRole('menuitem', { name: en['app.activity'] }).click();
    await page.waitForURL('**/app/admin/');
    await page.getByRole('heading', { name: en['admin.title'] }).waitFor();
    // The chart (its own lazy chunk) draws on a canvas; the table carries the same numbers.
    await page.locator('.admin-chart canvas').first().waitFor();
    let signups = 0;
    for (const day of signedUpOn) {
      const row = page.getByRole('row', { name: new RegExp(day) });
      await row.waitFor();
      signups += Number(await row.getByRole('cell').first().textContent());
    }
    expect(signups).toBeGreaterThanOrEqual(2);
    await shot(page, 'account-11-admin');

    const someone = await makeCompletedUser(app.server);
    const other = await phone({ token: someone.token, language: 'en' });
    await other.goto(`${app.server.url}/app/admin/`);
    await other.getByRole('heading', { name: en['notFound.title'] }).waitFor();
  });

  it('deletes the account from settings, behind a confirm step, and lands signed out', async () => {
    const user = await makeCompletedUser(app.server, { name: 'Adiós' }, { firstName: 'Dana' });
    const page = await phone({ token: user.token, language: 'en' });

    await page.goto(`${app.server.url}/app/home/`);
    await page.getByRole('button', { name: new RegExp(en['app.userMenu']) }).click();
    await page.getByRole('menuitem', { name: en['app.settings'] }).click();
    await page.waitForURL('**/app/settings/');
    await page.getByRole('heading', { name: en['settings.title'] }).waitFor();
    await page.getByText(user.email, { exact: true }).waitFor();
    await shot(page, 'account-07-settings');

    await page.getByRole('button', { name: en['settings.delete.start'] }).click();
    // The password field takes the focus, and the page scrolls to it far enough that the confirm
    // and cancel buttons under it are in sight too, above the bottom navigation.
    const cancel = page.getByRole('button', { name: en['settings.delete.cancel'] });
    await expect
      .poll(() =>
        cancel.evaluate((button) => {
          const nav = document.querySelector('.bottom-nav')!.getBoundingClientRect();
          return document.activeElement?.id === 'delete-password' && button.getBoundingClientRect().bottom <= nav.top;
        }),
      )
      .toBe(true);
    await page.getByLabel(en['settings.delete.confirmPassword']).fill('not my password');
    await page.getByRole('button', { name: en['settings.delete.confirm'] }).click();
    await page.getByText('The password is incorrect.').waitFor();
    await shot(page, 'account-08-delete-confirm');
    expect((await client(app.server.url).get('/api/users/me/', { token: user.token })).status).toBe(200);

    await page.getByLabel(en['settings.delete.confirmPassword']).fill(user.password);
    await page.getByRole('button', { name: en['settings.delete.confirm'] }).click();
    await page.waitForURL(`${app.server.url}/`);
    await page.getByText(en['settings.delete.done']).waitFor();
    // The toast slides in: the picture is taken once it has arrived (not after its countdown).
    await entryAnimationsDone(page);
    await shot(page, 'account-09-deleted');

    expect(await page.evaluate(() => localStorage.getItem('auth_token'))).toBeNull();
    expect((await client(app.server.url).get('/api/users/me/', { token: user.token })).status).toBe(401);
    expect(await app.server.app.db.select().from(users).where(eq(users.id, user.id))).toEqual([]);
  });
});
