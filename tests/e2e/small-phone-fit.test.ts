/**
 * What fits on a 320 px phone (and a 360 px one), in Spanish (and register's password error line in
 * English, "e-mail" whole at its end): the page-not-found's language switch
 * held to its buttons, register's toast clear of the login button, the top bar's language centred
 * with the buttons beside it, the chats' search placeholder whole, "Mis eventos" on one line, a
 * report's two decisions inside the page, the activity table holding its dates while it scrolls
 * sideways, and a report sheet out of the day's reports offering "Bloquear a … ahora" on one line
 * with a long name; pages that stay still as slow answers come, the e-mail
 * banner among them (three short lines at 360 px, in both languages), and the deck under the event bar's held room in English on a 390 px phone too.
 * And at 320 px with the text at 200 %: the landing page's header, headings and
 * footer, the bottom navigation and the e-mail banner, whole on the screen.
 */
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { format } from '../../shared/i18n/format';
import { checkIn, makeEvent } from '../helpers/events';
import { makeCompletedUser, markEmailVerified, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { makeModerator } from '../helpers/safety';
import { match } from '../realtime/fixtures';
import { limitRules } from '../../server/lib/limits';
import { entryAnimationsDone, hasChromium, holdAnswers, keepShot, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function box(locator: Locator): Promise<Box> {
  const found = await locator.boundingBox();
  if (!found) throw new Error(`${locator} has no box`);
  return found;
}

/** After the entry animations (what the checks after it measure, a toast among them), a picture of the page. */
async function shot(page: Page, name: string) {
  await entryAnimationsDone(page);
  await keepShot(page, `small-phone-fit-${name}`);
}

/** What the page holds now has been drawn, its layout shifts reported: the next frame after has begun. */
const drawn = (page: Page) =>
  page.evaluate(async () => {
    for (let frame = 0; frame < 2; frame++) await new Promise(requestAnimationFrame);
  });

/** From the next page opened in `context` on: its layout-shift score (CLS), read with `layoutShift`. */
const watchLayoutShift = (context: BrowserContext) =>
  context.addInitScript(() => {
    let score = 0;
    const add = (entries: PerformanceEntryList) => {
      for (const entry of entries as Array<PerformanceEntry & { value: number; hadRecentInput: boolean }>) if (!entry.hadRecentInput) score += entry.value;
    };
    const observer = new PerformanceObserver((list) => add(list.getEntries()));
    observer.observe({ type: 'layout-shift', buffered: true });
    (window as unknown as { layoutShift: () => number }).layoutShift = () => (add(observer.takeRecords()), score);
  });

/** The page's layout-shift score so far: the shifts no tap or key of the user's caused. */
const layoutShift = (page: Page) => page.evaluate(() => (window as unknown as { layoutShift: () => number }).layoutShift());

const SIZES = [
  { width: 320, height: 568 },
  { width: 360, height: 740 },
] as const;

describe.skipIf(!ready)('a small phone, in Spanish (Chromium)', { timeout: 120_000 }, () => {
  const app = appInChromium();
  let moderator: TestUser;
  let reportId: number;
  let fiesta: { code: string };

  beforeAll(async () => {
    moderator = await makeModerator(app.server, { name: 'Mod' });
    fiesta = await makeEvent(app.server, moderator, { name: 'Fiesta' });
    const reporter = await makeCompletedUser(app.server);
    const reported = await makeCompletedUser(app.server, { name: 'Alanis' });
    const report = await client(app.server.url).post('/api/reports/', { token: reporter.token, json: { user_id: reported.id, reason: 'harassment' } });
    expect(report.status).toBe(201);
    reportId = report.body.id;
  });

  /** A page at 320 px wide with the text at twice its size, as a reader's browser setting makes it. */
  async function bigText(session?: { token: string; language: 'en' | 'es' }) {
    const { context, page } = await openPhone(app.browser, session);
    await page.setViewportSize(SIZES[0]);
    // Before the app's first layout, on the page's own root (the script runs before it exists).
    await context.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => document.documentElement.style.setProperty('font-size', '200%'));
    });
    return { context, page };
  }

  /** What under `selector` runs past the screen's sides, or is cut in its own box. */
  const spills = (page: Page, selector: string) =>
    page.locator(selector).evaluateAll((roots) => {
      const width = document.documentElement.clientWidth;
      return roots
        .flatMap((root) => [root, ...root.querySelectorAll('*')])
        .filter((element) => {
          if (!element.checkVisibility() || element.closest('.sr-only')) return false;
          const { left, right } = element.getBoundingClientRect();
          return left < -0.5 || right > width + 0.5 || element.scrollWidth > element.clientWidth + 1;
        })
        .map((element) => `<${element.tagName.toLowerCase()} class="${element.getAttribute('class') ?? ''}"> ${element.textContent?.slice(0, 40)}`);
    });

  it('fits the landing page’s header, headings and footer at 200 % text (320 px)', async () => {
    const { context, page } = await bigText();
    await page.goto(`${app.server.url}/`);
    await page.locator('.site-footer').waitFor();
    await shot(page, '07-landing-big-text');
    await page.locator('.site-footer').scrollIntoViewIfNeeded();
    await shot(page, '08-footer-big-text');
    expect(await spills(page, '.site-header, h1, h2, .site-footer')).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(SIZES[0].width);
    await context.close();
  });

  it('fits the bottom navigation, the e-mail banner and a page’s heading at 200 % text (320 px)', async () => {
    const unverified = await makeCompletedUser(app.server, { name: 'Ana' }, { email: `a${Date.now().toString(36).slice(-6)}@x.co` });
    const { context, page } = await bigText({ token: unverified.token, language: 'es' });
    await page.goto(`${app.server.url}/app/matches/`);
    await page.locator('.verify-banner').waitFor();
    await page.locator('.bottom-nav').waitFor();
    await shot(page, '09-app-big-text');
    expect(await spills(page, '.bottom-nav, .verify-banner, h1, h2')).toEqual([]);
    // On a phone anything wider than the screen widens the fixed bars with it: "Tus conversaciones" did.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(SIZES[0].width);
    await page.goto(`${app.server.url}/app/settings/`);
    await page.locator('h1').first().waitFor();
    await shot(page, '10-settings-big-text');
    expect(await spills(page, '.bottom-nav, .verify-banner, h1, h2')).toEqual([]);
    await context.close();
  });

  /**
   * The moderator's phone, one for the cases that look at a page once it has settled: each opens its
   * page anew at its own size. (A new phone each, and the app's first load on it, told nothing more
   * and took half of those cases' time.)
   */
  let moderatorPhone: ReturnType<typeof openPhone> | undefined;

  /** A page of the app at `size`, signed in as the moderator. */
  async function signedIn(size: (typeof SIZES)[number]) {
    moderatorPhone ??= openPhone(app.browser, { token: moderator.token, language: 'es' });
    const { page } = await moderatorPhone;
    await page.setViewportSize(size);
    return { page };
  }

  /** A visitor's phone, for the sign-ups that each start on a page opened anew at their own size. */
  let visitorPhone: ReturnType<typeof openPhone> | undefined;

  it.each(SIZES)('keeps register’s toast clear of "Iniciar sesión" ($width × $height)', async (size) => {
    visitorPhone ??= openPhone(app.browser);
    const { page } = await visitorPhone;
    await page.setViewportSize(size);
    await page.goto(`${app.server.url}/register/`);
    await page.getByLabel(es['register.firstName']).fill('Lucía');
    await page.getByLabel(es['register.lastName']).fill('García');
    await page.getByLabel(es['auth.email']).fill(`lucia.${size.width}@example.com`);
    await page.getByLabel(es['auth.password'], { exact: true }).fill('Zq8!wlkjhq');
    await page.getByLabel(es['register.password2']).fill('Zq8!wlkjhq');
    await page.getByRole('button', { name: es['register.submit'] }).click();
    await page.waitForURL('**/login/');
    const toast = page.locator('.toast', { hasText: es['register.success'] });
    await toast.waitFor();
    await shot(page, `01-registered-${size.width}`);
    // It lay over the button, four lines high, taking its taps for five seconds.
    const button = page.getByRole('button', { name: es['login.submit'] });
    expect(overlaps(await box(toast), await box(button))).toBe(false);
    // At the foot of the screen, where client/toast.css places it (bottom-right).
    const { y, height } = await box(toast);
    expect(y + height).toBeGreaterThan(size.height - 24);
  });

  it('keeps "e-mail" whole in the server’s line under register’s password, in English (360 px)', async () => {
    const { context, page } = await openPhone(app.browser);
    await context.addInitScript(() => localStorage.setItem('language_code', 'en'));
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${app.server.url}/register/`);
    const email = `lucia.fernandez.${Date.now().toString(36).slice(-6)}@example.com`;
    await page.getByLabel(en['register.firstName']).fill('Lucía');
    await page.getByLabel(en['register.lastName']).fill('Fernández');
    await page.getByLabel(en['auth.email']).fill(email);
    for (const label of [en['auth.password'], en['register.password2']]) await page.getByLabel(label, { exact: true }).fill(email.slice(0, email.indexOf('@')));
    await page.getByRole('button', { name: en['register.submit'] }).click();
    const line = page.locator('#password-error');
    await line.waitFor();
    await shot(page, '11-register-password-error-en');
    // "The password is too similar to the e-" / "mail address.": the server's plain hyphen, where a line may break.
    const tops = await line.evaluate((element) => {
      const text = element.firstChild as Text;
      const at = text.data.search(/e[-\u2011]mail/);
      return [0, 2].map((offset) => {
        const range = document.createRange();
        range.setStart(text, at + offset);
        range.setEnd(text, at + offset + 1);
        return Math.round(range.getClientRects()[0]!.top);
      });
    });
    expect(tops[1]).toBe(tops[0]);
    await context.close();
  });

  it('holds the page-not-found’s language switch to its two buttons, where it stays as the language changes (360 px)', async () => {
    // The visitor's phone after its sign-ups: in Spanish still, left in English.
    visitorPhone ??= openPhone(app.browser);
    const { page } = await visitorPhone;
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${app.server.url}/no-such-page/`);
    // Named in the page's language: Idioma, then Language.
    const group = page.getByRole('group', { name: new RegExp(`^(${es['language.label']}|${en['language.label']})$`) });
    const english = group.getByRole('button', { name: /^EN,/ });
    const [spanish, before] = [await box(group.getByRole('button', { name: /^ES,/ })), await box(group)];
    // It stretched across the page's column, an empty half of a pill beside "English".
    expect(before.width).toBeLessThan(spanish.width + (await box(english)).width + 12);
    await english.click();
    await page.getByRole('heading', { name: en['notFound.title'] }).waitFor();
    // The column narrowed to the shorter heading, and the switch moved under the finger.
    expect((await box(group)).x).toBeCloseTo(before.x, 0);
  });

  it.each(SIZES)('centres the top bar’s language with the avatar and Logout beside it ($width px)', async (size) => {
    const { page } = await signedIn(size);
    await page.goto(`${app.server.url}/app/matches/`);
    const language = page.locator('.top-bar .lang-switch');
    await language.waitFor();
    const middle = ({ y, height }: Box) => y + height / 2;
    // It sat at y 0–46, touching the screen's edge, the buttons beside it centred at 28.
    expect(Math.abs(middle(await box(language)) - middle(await box(page.locator('.top-bar .icon-btn'))))).toBeLessThanOrEqual(1);
    await shot(page, `02-top-bar-${size.width}`);
  });

  it.each(SIZES)('shows the chats’ search placeholder whole ($width px)', async (size) => {
    const { page } = await signedIn(size);
    await page.goto(`${app.server.url}/app/matches/`);
    // It read "Buscar matches y conv…".
    const search = page.getByRole('searchbox');
    const [room, needed] = await search.evaluate((input: HTMLInputElement) => {
      const style = getComputedStyle(input);
      const context = document.createElement('canvas').getContext('2d')!;
      context.font = style.font;
      return [input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight), context.measureText(input.placeholder).width];
    });
    expect(needed).toBeLessThanOrEqual(room);
    await shot(page, `03-chats-${size.width}`);
  });

  it.each(SIZES)('writes "Mis eventos" on one line beside or above "Crear evento" ($width px)', async (size) => {
    const { page } = await signedIn(size);
    await page.goto(`${app.server.url}/app/events/`);
    const title = page.getByRole('heading', { name: es['events.mine.title'] });
    await title.waitFor();
    // Its words' rectangles all at one height: it broke into "Mis / eventos".
    const lines = await title.evaluate((heading) => {
      const range = document.createRange();
      range.selectNodeContents(heading);
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
    });
    expect(lines).toBe(1);
    const [head, create] = [await box(page.locator('.event-card-head')), await box(page.getByRole('link', { name: es['events.create'] }))];
    expect(create.x + create.width).toBeLessThanOrEqual(head.x + head.width + 0.5);
    await title.scrollIntoViewIfNeeded();
    await shot(page, `04-events-${size.width}`);
  });

  it('words "Entrar en …" of a long event name as one sentence on its button (360 px)', async () => {
    const guest = await makeCompletedUser(app.server, { name: 'Carmen' });
    await checkIn(app.server, guest, fiesta.code);
    const long = await makeEvent(app.server, moderator, { name: 'Gran Fiesta Benéfica de Fin de Año de la Asociación de Vecinos' });
    const { context, page } = await openPhone(app.browser, { token: guest.token, language: 'es' });
    await page.setViewportSize(SIZES[1]);
    await page.goto(`${app.server.url}/app/events/`);
    await page.getByLabel(es['events.join.label']).fill(long.code);
    await page.getByRole('button', { name: es['events.join.submit'] }).click();
    const confirm = page.getByRole('dialog').locator('.sheet-actions button').first();
    await confirm.waitFor();
    await shot(page, '05-switch-event-long-name');
    // "Entrar en" on one line, and the name's first words beside it: the words and the name were two
    // columns side by side, "Entrar / en" in the one, the name's three lines in the other.
    const lines = await confirm.evaluate((button) => {
      const [words, name] = [...button.querySelectorAll('bdi')].flatMap((bdi) => [bdi.previousSibling!, bdi]);
      const tops = (node: Node) => {
        const range = document.createRange();
        range.selectNodeContents(node);
        return [...range.getClientRects()].map((rect) => Math.round(rect.top));
      };
      return { words: tops(words!), name: tops(name!) };
    });
    expect(new Set(lines.words).size).toBe(1);
    expect(lines.name[0]).toBe(lines.words[0]);
    await context.close();
  });

  it('keeps the deck still as a slow answer confirms the event one is at (360 px)', async () => {
    const guest = await makeCompletedUser(app.server, { name: 'Nuria', genders_to_match: ['female'] });
    const elena = await makeCompletedUser(app.server, { name: 'Elena', gender: 'female', genders_to_match: ['female'] });
    for (const user of [guest, elena]) await checkIn(app.server, user, fiesta.code);
    const { context, page } = await openPhone(app.browser, { token: guest.token, language: 'es' });
    await page.setViewportSize(SIZES[1]);
    await page.goto(`${app.server.url}/app/home/`);
    await page.getByRole('region', { name: 'Fiesta' }).waitFor();
    // A slow answer: held until the card is up.
    const answer = await holdAnswers(context, '**/api/events/current/');
    await page.reload();
    const card = page.getByTestId('swipe-card');
    await card.waitFor();
    const first = (await box(card)).y;
    const answered = page.waitForResponse('**/api/events/current/');
    answer();
    await answered;
    await page.getByRole('region', { name: 'Fiesta' }).waitFor();
    // The event's bar came above the card once the answer did, and pushed it down.
    expect((await box(card)).y).toBe(first);
    await context.close();
  });

  // The way in takes three lines in Spanish on a 360 px phone, two in English on a 390 px one.
  it.each([
    { language: 'es', words: es['deck.event.join'], width: 360, height: 640, gap: 6 },
    { language: 'en', words: en['deck.event.join'], width: 390, height: 844, gap: 10 },
  ] as const)('holds the event bar’s room above a new account’s first deck until the server says where it is ($language, $width×$height)', async ({ language, words, width, height, gap }) => {
    const guest = await makeCompletedUser(app.server, { name: 'Olga', genders_to_match: ['female'] });
    await makeCompletedUser(app.server, { name: 'Irene', gender: 'female', genders_to_match: ['female'] });
    const { context, page } = await openPhone(app.browser, { token: guest.token, language });
    await page.setViewportSize({ width, height });
    // Nothing kept on this phone yet: where they are comes with the server's answer alone, held.
    const answer = await holdAnswers(context, '**/api/events/current/');
    await page.goto(`${app.server.url}/app/home/`);
    const card = page.getByTestId('swipe-card');
    await card.waitFor();
    await drawn(page);
    const first = (await box(card)).y;
    answer();
    await page.getByRole('link', { name: new RegExp(words) }).waitFor();
    await drawn(page);
    // "Únete a un evento" came above the card once the answer did, and pushed it 68 px down; then,
    // in a room of three lines, "Join an event" on two took it 18 px up.
    expect((await box(card)).y).toBe(first);
    // Under it the short screen's 6 px before the card: the taller screens' 10, declared after, won.
    const bar = await box(page.locator('.deck > .event-bar'));
    expect((await box(card)).y - (bar.y + bar.height)).toBe(gap);
    await context.close();
  });

  it('keeps the events page still as slow answers confirm the event one is at (360×640)', async () => {
    const sala = await makeEvent(app.server, moderator, { name: 'Sala' });
    const guest = await makeCompletedUser(app.server, { name: 'Rocío' });
    // Verified: the banner asking to verify comes with the user, above every page (not this page's shift).
    await markEmailVerified(app.server, guest.id);
    await checkIn(app.server, guest, sala.code);
    const { context, page } = await openPhone(app.browser, { token: guest.token, language: 'es' });
    await page.setViewportSize({ width: 360, height: 640 });
    const here = page.getByRole('region', { name: es['events.current.title'] });
    // Opened once: the device keeps who is signed in and the event they are at.
    await page.goto(`${app.server.url}/app/events/`);
    await here.getByText(format(es['events.count'], { count: 1 })).waitFor();
    // Someone else comes in meanwhile: the answer, once it comes, says so.
    await checkIn(app.server, await makeCompletedUser(app.server), sala.code);

    // The page opens before the server has said who is signed in, and where they are: both held
    // until it has painted.
    const answer = await holdAnswers(context, /\/api\/(users\/me|events\/current)\/$/);
    await watchLayoutShift(context);
    await page.reload();
    // Drawn as it is before the answers: in the DOM is not yet on the screen (nor is a shift yet a shift).
    await page.getByText(es['events.mine.empty']).waitFor();
    await drawn(page);
    const join = page.getByRole('region', { name: es['events.join.title'] });
    const first = (await box(join)).y;
    answer();
    await here.getByText(format(es['events.count'], { count: 2 })).waitFor();
    await drawn(page);
    // Where "Únete a un evento" stood is where it stands; and the page's score, as Chromium reports it.
    expect((await box(join)).y).toBe(first);
    expect(await layoutShift(page)).toBeLessThanOrEqual(0.1);
    await context.close();
  });

  it.each([
    { who: 'unconfirmed', verified: false, banners: 1 },
    { who: 'confirmed', verified: true, banners: 0 },
  ])('shows the e-mail banner of an $who user as the device kept it, before the server says (360×640)', async ({ verified, banners }) => {
    const name = verified ? 'Inés' : 'Luz';
    // An address of a usual length, the same each run: the factory's run to 36 letters, and one wider than
    // the banner's line is cut in its name (as it should be) by as much as its letters' widths add up to.
    const email = `${verified ? 'ines' : 'luz'}-${Date.now().toString(36).slice(-6)}@example.com`;
    const guest = await makeCompletedUser(app.server, { name }, { firstName: name, email });
    if (verified) await markEmailVerified(app.server, guest.id);
    const { context, page } = await openPhone(app.browser, { token: guest.token, language: 'es' });
    await page.setViewportSize({ width: 360, height: 640 });
    const banner = page.locator('.verify-banner');
    // The top bar names the user once the server has said who is signed in.
    const known = page.locator('.top-user-name', { hasText: name });
    // Opened once: the device keeps who is signed in, and whether their e-mail is confirmed.
    await page.goto(`${app.server.url}/app/events/`);
    await known.waitFor({ state: 'attached' });
    expect(await banner.count()).toBe(banners);

    // Who is signed in, held until the page has painted.
    const answer = await holdAnswers(context, '**/api/users/me/');
    await watchLayoutShift(context);
    await page.reload();
    await page.getByText(es['events.mine.empty']).waitFor();
    await drawn(page);
    // The banner asking to confirm came with the answer, above the page, and pushed all of it down.
    expect(await banner.count()).toBe(banners);
    const join = page.getByRole('region', { name: es['events.join.title'] });
    const first = (await box(join)).y;
    answer();
    await known.waitFor({ state: 'attached' });
    await drawn(page);
    // The answer leaves the banner as the device kept it, and "Únete a un evento" where it stood.
    expect(await banner.count()).toBe(banners);
    expect((await box(join)).y).toBe(first);
    expect(await layoutShift(page)).toBeLessThanOrEqual(0.1);
    if (banners) {
      // Over the deck and the chats on a 360 × 740 phone, three short lines, its words whole, in both
      // languages: the title with Resend and ×, then the address. It took 88 px, the buttons' line 44;
      // they keep their 44 px, reaching over the lines beside theirs.
      await page.setViewportSize(SIZES[1]);
      for (const language of [es, en]) {
        if (language === en) await page.getByRole('button', { name: /^EN,/ }).click();
        await banner.getByText(language['app.verifyTitle']).waitFor();
        expect((await box(banner)).height).toBeLessThanOrEqual(72);
        expect(await spills(page, '.verify-banner')).toEqual([]);
        for (const button of await banner.getByRole('button').all()) {
          const { x, y, width, height } = await box(button);
          expect(height).toBeGreaterThanOrEqual(44);
          // Their foot theirs too, over the address's line.
          expect(await button.evaluate((element, { left, top }) => document.elementFromPoint(left, top) === element, { left: x + width / 2, top: y + height - 2 })).toBe(true);
        }
      }
    }
    await context.close();
  });

  it('keeps a report’s Dismiss and Suspend inside the page, their words inside them (320 px)', async () => {
    const { page } = await signedIn(SIZES[0]);
    await page.goto(`${app.server.url}/app/moderation/reports/${reportId}/`);
    const ban = page.getByRole('button', { name: es['moderation.ban'], exact: true });
    await ban.waitFor();
    await ban.scrollIntoViewIfNeeded();
    await shot(page, '05-report');
    // "Suspender" ran 3 px past the card's edge.
    const actions = await box(page.locator('.resolve-actions'));
    for (const button of [ban, page.getByRole('button', { name: es['moderation.dismiss'], exact: true })]) {
      const { x, width } = await box(button);
      expect(x + width).toBeLessThanOrEqual(actions.x + actions.width + 0.5);
      expect(await button.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    }
  });

  /** Someone who has sent the day's last report, in a chat with a long name: the sheet offers to block instead. */
  let outOfReports: Promise<{ reporter: TestUser; chat: number }> | undefined;
  const LONG_NAME = 'María José Fernández-Castellanos de la Vega';
  async function reportWithNoneLeft(language: 'en' | 'es', open: typeof bigText = async (session) => openPhone(app.browser, session)) {
    outOfReports ??= (async () => {
      const reporter = await makeCompletedUser(app.server, { name: 'Lucía' });
      for (let sent = 0; sent < limitRules(app.server.config).report.max; sent++) {
        const other = await makeCompletedUser(app.server);
        const report = await client(app.server.url).post('/api/reports/', { token: reporter.token, json: { user_id: other.id, reason: 'spam' } });
        expect(report.status).toBe(201);
      }
      const long = await makeCompletedUser(app.server, { name: LONG_NAME });
      return { reporter, chat: await match(app.server, long, reporter) };
    })();
    const { reporter, chat } = await outOfReports;
    const copy = language === 'es' ? es : en;
    const { context, page } = await open({ token: reporter.token, language });
    await page.setViewportSize(SIZES[0]);
    await page.goto(`${app.server.url}/app/chat/${chat}`);
    await page.getByRole('button', { name: copy['safety.menu'] }).click();
    await page.getByRole('menuitem', { name: copy['safety.report'] }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('radio', { name: copy['safety.reason.harassment'] }).check();
    await dialog.getByRole('button', { name: copy['safety.report.send'] }).click();
    await dialog.getByRole('alert').getByText(copy['safety.report.throttled']).waitFor();
    const blockNow = dialog.getByRole('button', { name: format(copy['safety.report.blockInstead'], { name: LONG_NAME }) });
    await blockNow.waitFor();
    return { context, page, dialog, blockNow, cancel: dialog.getByRole('button', { name: copy['safety.cancel'] }) };
  }

  it('words "Bloquear a … ahora" of a long name on one line, the name cut short, in Spanish and English (320 px)', async () => {
    for (const language of ['es', 'en'] as const) {
      const { context, page, blockNow, cancel } = await reportWithNoneLeft(language);
      await shot(page, `07-block-instead-${language}`);
      // One line, as tall as Cancel: it was three, "Bloquear a María José / Fernández-Castellanos / de la Vega ahora".
      expect((await box(blockNow)).height).toBe((await box(cancel)).height);
      // Its words inside it, the name cut short with "…" (on the screen only: the button's name is still
      // the whole sentence, found by it above).
      expect(await blockNow.evaluate((button) => [button, button.firstElementChild!].every((element) => element.scrollWidth <= element.clientWidth))).toBe(true);
      expect(await blockNow.locator('bdi').evaluate((name) => name.scrollWidth > name.clientWidth)).toBe(true);
      await context.close();
    }
  });

  it('words "Bloquear a … ahora" at 200 % text with a part of the name, not a sliver of it (320 px)', async () => {
    const { context, page, blockNow } = await reportWithNoneLeft('es', bigText);
    await shot(page, '07-block-instead-200');
    // It showed "Bloquear a M": the name now takes the next line, with "ahora", where more of it fits.
    const name = await blockNow.locator('bdi').evaluate((bdi) => ({ shown: bdi.clientWidth, em: parseFloat(getComputedStyle(bdi).fontSize) }));
    expect(name.shown).toBeGreaterThanOrEqual(3 * name.em);
    expect(await blockNow.evaluate((button) => button.scrollWidth <= button.clientWidth)).toBe(true);
    await context.close();
  });

  it('scrolls the sheet to the focused button when the day’s limit is said above it (320 px)', async () => {
    const { context, dialog, blockNow } = await reportWithNoneLeft('es');
    // The button pressed keeps the focus, and the line said above it pushed it past the sheet's foot.
    expect(await blockNow.evaluate((button) => button === document.activeElement)).toBe(true);
    const sheet = await box(dialog);
    await expect.poll(async () => (await box(blockNow)).y + (await box(blockNow)).height).toBeLessThanOrEqual(sheet.y + sheet.height);
    expect((await box(blockNow)).y).toBeGreaterThanOrEqual(sheet.y);
    await context.close();
  });

  it('scrolls the activity table sideways with its dates held, its headings whole (320 px)', async () => {
    const { page } = await signedIn(SIZES[0]);
    // Today's UTC date before the table is read: its row is there, as yesterday's across a midnight.
    const todaysDate = new Date().toISOString().slice(0, 10);
    await page.goto(`${app.server.url}/app/admin/`);
    const table = page.locator('.admin-table-wrap');
    const today = page.getByRole('rowheader', { name: todaysDate });
    await today.waitFor();
    // Its headings wrap between words: "Inicios de sesión" shows whole, where it was cut at the card's edge.
    const logins = await box(page.locator('.admin-table').getByRole('columnheader', { name: es['admin.logins'] }));
    const shown = await table.evaluate((element) => {
      const { left, width } = element.getBoundingClientRect();
      return { x: left, width: width - parseFloat(getComputedStyle(element).paddingRight) };
    });
    expect(logins.x + logins.width).toBeLessThanOrEqual(shown.x + shown.width);
    await table.scrollIntoViewIfNeeded();
    const before = await box(today);
    await table.evaluate((element) => element.scrollBy({ left: element.scrollWidth }));
    // Scrolled to the last column, the day is still where it was.
    expect(await table.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
    expect((await box(today)).x).toBeCloseTo(before.x, 0);
    await shot(page, '06-activity-scrolled');
  });
});
