/**
 * axe-core's rules (WCAG 2 A and AA, and its best practices) on every screen of the app in Chromium
 * (390×844, Spanish, the default): the public pages, each page of the signed-in app with something on
 * it (a card in the deck, a match with a message, a like, an event, a report for the moderator), and
 * the states that open on top of a page (the match overlay, a chat's menu, the report form), each in
 * the light palette and in the dark one. A screen passes with no violation at all; a failure lists
 * each rule, its help and the elements that break it.
 */
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import type { AxeResults } from 'axe-core';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { es } from '../../shared/i18n/es';
import { format } from '../../shared/i18n/format';
import type { OrganizerEvent } from '../../shared/schemas/events';
import { checkIn, makeEvent } from '../helpers/events';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { imageDataUri } from '../helpers/images';
import { client } from '../helpers/http';
import { subscribeThroughTestCheckout } from '../helpers/plan';
import { makeModerator } from '../helpers/safety';
import { entryAnimationsDone, hasChromium, keepMatchOverlay, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();
const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's rules about colours (its tag cat.color), and of them those it runs unless asked (the
 * other, color-contrast-enhanced, is AAA): the dark palette's audit.
 */
const COLOUR_RULES = ['color-contrast', 'color-contrast-enhanced', 'link-in-text-block'];
const DARK_RULES = ['color-contrast', 'link-in-text-block'];

/** One line per rule broken, with the first elements that break it: what a failing test prints. */
function violations(results: AxeResults): string[] {
  return results.violations.map((rule) => {
    const nodes = rule.nodes.slice(0, 3).map((node) => node.target.join(' '));
    return `${rule.id} (${rule.impact}): ${rule.help} — ${nodes.join(', ')}${rule.nodes.length > 3 ? ', …' : ''}`;
  });
}

describe.skipIf(!ready)('accessibility of every screen (axe-core in Chromium, 390×844)', { timeout: 120_000 }, () => {
  const app = appInChromium();
  let visitor: { context: BrowserContext; page: Page };
  let signedIn: { context: BrowserContext; page: Page };
  let ana: TestUser;
  let ben: TestUser;
  let cai: TestUser;
  let event: OrganizerEvent;
  let conversationId: number;
  let reportId: number;

  /**
   * Runs axe on what the page shows once its entrance animations are over (colours mid-fade read
   * wrong), in the light palette with all of its rules and then in the dark one (the phone's setting)
   * with its rules about colours, each violation named by its palette. The dark palette
   * (client/styles.css) sets colours alone, opaque as the light one's: the page's elements, their
   * boxes, names and roles, what shows and what is hidden are the light palette's, and so are the
   * other rules' findings (their second run was a third of the audit's time).
   */
  async function audit(page: Page): Promise<string[]> {
    // Evaluated through the DevTools protocol: the page's Content-Security-Policy does not apply to it.
    // Once a document: a page reached through the app's own links keeps it (its 650 kB took
    // a second or more of a core to evaluate anew).
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await axeSource);
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      // The page's theme follows the phone's on its change event, then its colours' transitions run.
      await page.waitForFunction((scheme) => document.documentElement.dataset.theme === scheme, colorScheme);
      await entryAnimationsDone(page);
      // Each rule runs on every element; only the violations are made whole (a selector for each of
      // their elements): the passes' and the rest's are most of axe's time, and nothing reads them.
      const results = await page.evaluate(
        ([rules, colours]) => {
          const { axe } = window as unknown as { axe: typeof import('axe-core') };
          // A rule about colours that a newer axe-core adds, run in the light palette alone, would be missed in the dark.
          const known = axe.getRules(['cat.color']).map((rule) => rule.ruleId);
          if (known.sort().join() !== colours.join()) throw new Error(`axe-core's rules about colours are ${known.join(', ')}: name the dark palette's anew`);
          return axe.run(document, { resultTypes: ['violations'], ...(rules ? { runOnly: { type: 'rule', values: rules } } : {}) });
        },
        [colorScheme === 'dark' ? DARK_RULES : null, COLOUR_RULES] as const,
      );
      found.push(...violations(results as AxeResults).map((violation) => `${colorScheme}: ${violation}`));
    }
    await page.emulateMedia({ colorScheme: 'light' });
    return found;
  }

  /**
   * Opens `path` as a person reaches it, waits for what says it is there, and audits it: loaded, as
   * from a link elsewhere, or `inApp`, through the app's own links (wouter's `history.pushState`) in
   * the document already open. A load of every page was a third of these audits' time, with axe-core
   * evaluated anew in each. In the app, what says the page is there is waited for on the new page,
   * not found on the page left.
   */
  async function auditPage(page: Page, path: string, shown: string, { inApp = false } = {}): Promise<string[]> {
    if (inApp) {
      await page.locator(shown).evaluateAll((elements) => elements.forEach((element) => element.setAttribute('data-left', '')));
      await page.evaluate((to) => history.pushState(null, '', to), path);
      await page.locator(shown).and(page.locator(':not([data-left])')).first().waitFor();
    } else {
      await page.goto(`${app.server.url}${path}`);
      await page.locator(shown).first().waitFor();
    }
    return audit(page);
  }

  beforeAll(async () => {
    const api = client(app.server.url);
    ana = await makeModerator(app.server, { name: 'Ana', gender: 'female', genders_to_match: ['male'] });
    ben = await makeCompletedUser(app.server, { name: 'Ben', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Ben' });
    cai = await makeCompletedUser(app.server, { name: 'Cai', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Cai' });
    // Ana and Ben match and Ben writes; Cai likes Ana (her deck's card, and a like in "Likes you").
    await api.post('/api/matching/', { token: ana.token, json: { response: 'like', other: ben.id } });
    const matched = await api.post('/api/matching/', { token: ben.token, json: { response: 'like', other: ana.id } });
    conversationId = matched.body.conversation_id;
    await api.post(`/api/conversations/${conversationId}/messages/`, { token: ben.token, json: { content: '¿Dónde estás? Sala Apolo: www.salaapolo.com' } });
    await api.post('/api/matching/', { token: cai.token, json: { response: 'like', other: ana.id } });
    // Ana hosts the event she and Cai are at; Cai reports Ben, for the moderator's queue.
    event = await makeEvent(app.server, ana, { name: 'Terrace Night' });
    await checkIn(app.server, ana, event.code);
    await checkIn(app.server, cai, event.code);
    const reported = await api.post('/api/reports/', { token: cai.token, json: { user_id: ben.id, reason: 'spam' } });
    reportId = reported.body.id;

    visitor = await openPhone(app.browser);
    signedIn = await openPhone(app.browser, { token: ana.token, language: 'es' });
  }, 180_000);

  it('the public pages: landing, sign-in, register, privacy, the account links, an event, a page not found', async () => {
    // From the landing page, through its links; an event's page and a page not found, from a link elsewhere.
    const pages: Array<[string, string, { inApp?: boolean }?]> = [
      ['/', 'h1'],
      ['/login/', 'h1', { inApp: true }],
      ['/register/', 'h1', { inApp: true }],
      ['/privacy/', 'h1', { inApp: true }],
      ['/forgot-password/', 'h1', { inApp: true }],
      [`/e/${event.code}`, 'text=Terrace Night'],
      ['/no-such-page/', 'h1'],
    ];
    for (const [path, shown, how] of pages) expect(await auditPage(visitor.page, path, shown, how), path).toEqual([]);
  });

  it('the signed-in app: the deck, chats, a chat, a profile, the editor, events, hosting, settings, plans, likes, admin, moderation', async () => {
    const page = signedIn.page;
    // The app opened on its deck, then moved through.
    const pages: Array<[string, string]> = [
      ['/app/matches/', 'text=¿Dónde estás?'],
      [`/app/chat/${conversationId}/`, 'text=¿Dónde estás?'],
      [`/app/profiles/${ben.id}/`, 'h1'],
      ['/app/profile/', 'input[name="name"], #name'],
      ['/app/events/', 'text=Terrace Night'],
      ['/app/events/new/', 'form'],
      [`/app/events/${event.id}/host/`, 'text=Terrace Night'],
      ['/app/settings/', 'h1'],
      ['/app/settings/blocked/', 'h1'],
      ['/app/settings/ended/', 'h1'],
      ['/app/subscribe/', '[data-testid="plan-starter"]'],
      ['/app/likes/', '.likes-upsell, [data-testid="like-card"]'],
      ['/app/admin/', 'table'],
      ['/app/moderation/', '.report-row'],
      [`/app/moderation/reports/${reportId}/`, 'h1'],
    ];
    expect(await auditPage(page, '/app/home/', '[data-testid="swipe-card"]'), '/app/home/').toEqual([]);
    for (const [path, shown] of pages) expect(await auditPage(page, path, shown, { inApp: true }), path).toEqual([]);
  });

  it('what opens on top: the match overlay, a chat’s menu and the report form', async () => {
    const page = signedIn.page;
    await page.goto(`${app.server.url}/app/home/`);
    await page.getByTestId('swipe-card').waitFor();
    // Cai liked Ana already: her like is a match. The overlay closes itself sooner than the audit ends.
    await keepMatchOverlay(page);
    await page.getByTestId('swipe-card').focus();
    await page.keyboard.press('ArrowRight');
    const overlay = page.locator('.match-overlay');
    await overlay.waitFor();
    expect(await audit(page), 'match overlay').toEqual([]);
    expect(await overlay.isVisible(), 'the overlay audited').toBe(true);
    // The keyboard stays on it: Tab, either way, does not reach the page behind it.
    const focusedInOverlay = () => page.evaluate(() => Boolean(document.activeElement?.closest('.match-overlay')));
    expect(await focusedInOverlay()).toBe(true);
    for (const key of ['Tab', 'Shift+Tab', 'Tab']) {
      await page.keyboard.press(key);
      expect(await focusedInOverlay(), key).toBe(true);
    }
    // Cai was the last of her deck: closed, the overlay leaves the deck saying the like, then its
    // empty words (in the live region it had all along), with the keyboard's place on those words.
    const news = page.getByTestId('deck-now');
    await page.keyboard.press('Escape');
    await page.locator('.deck-empty').waitFor();
    const words = await page.locator('.deck-empty').textContent();
    await expect.poll(() => news.textContent()).toBe(`${format(es['deck.decided.like'], { name: 'Cai' })} ${words}`);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('deck-empty'))).toBe(true);

    await page.goto(`${app.server.url}/app/chat/${conversationId}/`);
    // The chat's own menu, not the account's in the top bar (there before the chat has loaded).
    await page.getByRole('button', { name: es['safety.menu'] }).click();
    const report = page.getByRole('menuitem', { name: es['safety.report'] });
    await report.waitFor();
    expect(await audit(page), 'chat menu').toEqual([]);

    await report.click();
    await page.locator('form.report-form').waitFor();
    expect(await audit(page), 'report form').toEqual([]);
  });

  it('shows where the keyboard is on the editor’s “add a photo” tile, around the whole tile', async () => {
    const page = signedIn.page;
    await page.goto(`${app.server.url}/app/profile/`);
    const tile = page.locator('.photo-add').first();
    await tile.locator('input[type="file"]').focus();
    await entryAnimationsDone(page);
    // The ring is drawn just outside the tile (inside, its rounded, clipped box hid it): the band of
    // 4 px above the tile holds the ring's blue.
    const box = (await tile.boundingBox())!;
    const band = await page.screenshot({ clip: { x: box.x, y: box.y - 4, width: box.width, height: 4 } });
    const { data, info } = await sharp(band).raw().toBuffer({ resolveWithObject: true });
    let blue = 0;
    for (let at = 0; at < data.length; at += info.channels) {
      if (Math.abs(data[at]! - 37) < 40 && Math.abs(data[at + 1]! - 99) < 40 && data[at + 2]! > 195) blue += 1;
    }
    expect(blue).toBeGreaterThan(info.width);
  });

  it('shows the chosen option of each switch in forced colours, where backgrounds are drawn alike', async () => {
    const { page } = signedIn;
    await page.goto(`${app.server.url}/app/settings/`);
    await page.locator('.theme-switch button.is-active').waitFor();
    await page.emulateMedia({ forcedColors: 'active' });
    /** The colour drawn in a button's padding, left of its text, halfway down: its background as seen. */
    const drawn = async (button: Locator) => {
      const { data, info } = await sharp(await button.screenshot()).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const offset = (Math.floor(info.height / 2) * info.width + 3) * info.channels;
      return [...data.subarray(offset, offset + info.channels)].join(',');
    };
    try {
      for (const group of ['.theme-switch', '.lang-switch']) {
        const chosen = await drawn(page.locator(`${group} button.is-active`).first());
        const other = await drawn(page.locator(`${group} button:not(.is-active)`).first());
        expect(chosen, group).not.toBe(other);
      }
      // The billing period's radios, drawn as a switch.
      await page.goto(`${app.server.url}/app/subscribe/`);
      const period = page.locator('.toggle label');
      await period.first().waitFor();
      expect(await drawn(period.filter({ has: page.locator(':checked') }))).not.toBe(await drawn(period.filter({ hasNot: page.locator(':checked') })));
    } finally {
      await page.emulateMedia({ forcedColors: 'none' });
    }
  });

  it('moves between the billing periods with the arrows, as between radios', async () => {
    const { page } = signedIn;
    await page.goto(`${app.server.url}/app/subscribe/`);
    const yearly = page.getByRole('radio', { name: es['subscribe.yearly'] });
    const monthly = page.getByRole('radio', { name: es['subscribe.monthly'] });
    expect(await yearly.isChecked()).toBe(true);
    await yearly.focus();
    await page.keyboard.press('ArrowLeft');
    expect(await monthly.isChecked()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.closest('label')?.textContent)).toBe(es['subscribe.monthly']);
    expect(await page.getByTestId('plan-starter').textContent()).not.toContain(es['subscribe.perMonthAnnually']);
    await page.keyboard.press('ArrowRight');
    expect(await yearly.isChecked()).toBe(true);
  });

  it('reflows for large text on a 320 px phone: no page scrolls sideways (WCAG 1.4.10), and what is typed in a field grows too (1.4.4)', async () => {
    const pages: Array<[Page, string, string]> = [
      [visitor.page, '/', 'h1'],
      [visitor.page, '/login/', 'h1'],
      [signedIn.page, '/app/events/', 'text=Terrace Night'],
      [signedIn.page, `/app/events/${event.id}/host/`, 'text=Terrace Night'],
      [signedIn.page, '/app/settings/', 'h1'],
      [signedIn.page, '/app/matches/', 'text=¿Dónde estás?'],
      [signedIn.page, `/app/chat/${conversationId}/`, 'text=¿Dónde estás?'],
      [signedIn.page, '/app/subscribe/', '[data-testid="plan-starter"]'],
      [signedIn.page, '/app/moderation/', '.report-row'],
    ];
    const wider: string[] = [];
    const smaller: string[] = [];
    for (const [page, path, shown] of pages) {
      await page.setViewportSize({ width: 320, height: 568 });
      await page.goto(`${app.server.url}${path}`);
      await page.locator(shown).first().waitFor();
      // The phone's text size at 150 %: everything sized in rem grows with it.
      await page.addStyleTag({ content: 'html { font-size: 24px !important; }' });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      if (width > 320) wider.push(`${path}: ${width} px`);
      // The fields' text, kept at 16 px at least (less, and a phone zooms into the field), not at 16 px at most.
      smaller.push(
        ...(await page.evaluate(() =>
          [...document.querySelectorAll('.field :is(input, select, textarea), .search input, .event-link, .composer textarea')].flatMap((field) => {
            const size = getComputedStyle(field).fontSize;
            return parseFloat(size) < 24 ? [`${location.pathname} ${field.getAttribute('name') ?? field.tagName}: ${size}`] : [];
          }),
        )),
      );
    }
    // The composer grows a whole line at a time, each drawn whole (none scrolled out of it) up to six,
    // or up to as many as about 30 % of the screen holds (a keyboard up leaves the messages room): past them,
    // it scrolls, a whole number of lines in view. At 200 % and at a size whose lines are not whole
    // pixels (18 px: 24.75 px).
    const page = signedIn.page;
    const composer = page.locator('.composer textarea');
    const clipped: string[] = [];
    for (const root of [32, 18]) {
      await page.goto(`${app.server.url}/app/chat/${conversationId}/`);
      await composer.waitFor();
      await page.addStyleTag({ content: `html { font-size: ${root}px !important; }` });
      for (let lines = 1; lines <= 6; lines += 1) {
        await composer.fill(Array.from({ length: lines }, (_, at) => `línea ${at + 1}`).join('\n'));
        const [scrolled, shown, line, size, screen] = await composer.evaluate((field) => {
          const style = getComputedStyle(field);
          return [field.scrollHeight, field.clientHeight, parseFloat(style.lineHeight), parseFloat(style.fontSize), innerHeight];
        });
        // Its padding 24 px and borders 4 px around the lines.
        const held = Math.min(lines, Math.round((0.3 * screen - 28) / line));
        const whole = Math.abs(shown - 24 - held * line) <= 1 && (held < lines || scrolled <= shown);
        if (!whole || line < 1.25 * size) clipped.push(`${root} px, ${lines} lines: ${scrolled} px written, ${shown} px shown, lines of ${line} px for ${size} px text`);
      }
    }
    await composer.fill('');

    // At 200 %, the chats page: the count on "Likes you" inside its pill (Ana's like of Cai, on the
    // overlay above, took his away: Gil likes her).
    const gil = await makeCompletedUser(app.server, { name: 'Gil', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Gil' });
    await client(app.server.url).post('/api/matching/', { token: gil.token, json: { response: 'like', other: ana.id } });
    await page.goto(`${app.server.url}/app/matches/`);
    await page.locator('.likes-link-badge span').waitFor();
    await page.addStyleTag({ content: 'html { font-size: 32px !important; }' });
    const cut = await page.evaluate(() => {
      const found: string[] = [];
      const count = document.querySelector<HTMLElement>('.likes-link-badge span')!;
      if (count.scrollHeight > count.clientHeight || count.scrollWidth > count.clientWidth) {
        found.push(`likes count: ${count.scrollWidth}×${count.scrollHeight} in ${count.clientWidth}×${count.clientHeight}`);
      }
      if (document.documentElement.scrollWidth > 320) found.push(`page: ${document.documentElement.scrollWidth} px`);
      return found;
    });
    for (const page of [visitor.page, signedIn.page]) await page.setViewportSize({ width: 390, height: 844 });
    expect(wider).toEqual([]);
    expect(smaller).toEqual([]);
    expect(clipped).toEqual([]);
    expect(cut).toEqual([]);
  });

  it('gives a finger 44 px across and down on the small controls: languages, links, the top bar’s heart, the photos’, the calendar’s, a toast’s ×', async () => {
    /**
     * Each visible element of `selector` whose 44 px, across and down through its middle, is not all
     * its own (a pseudo-element or padding that draws it smaller still counts): what a tap there hits.
     */
    const small = (page: Page, selector: string) =>
      page.locator(selector).evaluateAll((elements, name) =>
        elements.flatMap((element) => {
          if (element.getBoundingClientRect().width === 0) return [];
          element.scrollIntoView({ block: 'center', behavior: 'instant' });
          const box = element.getBoundingClientRect();
          const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
          // 21 px either way of its middle: inside a 44 px box wherever its edges fall between pixels, outside a 40 px one.
          const edges = [[-21, 0], [21, 0], [0, -21], [0, 21]] as const;
          const missed = edges.filter(([dx, dy]) => !element.contains(document.elementFromPoint(x + dx, y + dy)));
          return missed.length ? [`${name} "${element.getAttribute('aria-label') ?? element.textContent?.trim()}" ${Math.round(box.width)}×${Math.round(box.height)}`] : [];
        }), selector);
    const found: string[] = [];
    const page = visitor.page;
    await page.goto(`${app.server.url}/`);
    await page.getByRole('button', { name: es['nav.openMenu'] }).click();
    await page.locator('#side-menu .lang-switch').waitFor();
    await entryAnimationsDone(page);
    found.push(...(await small(page, '#side-menu .lang-switch button')));
    await page.goto(`${app.server.url}/login/`);
    await page.locator('h1').waitFor();
    found.push(...(await small(page, '.lang-switch button')), ...(await small(page, '.forgot')));
    await page.goto(`${app.server.url}/privacy/`);
    await page.locator('h1').waitFor();
    found.push(...(await small(page, '.lang-switch button')), ...(await small(page, '.toc a')));

    // Someone with two photos: the second has a star, both a ×. The calendar, on a phone of 390 px and
    // of 320 px (there the widest it can be).
    const eva = await makeCompletedUser(app.server, { name: 'Eva', image2: await imageDataUri('jpeg') });
    const { context, page: editor } = await openPhone(app.browser, { token: eva.token, language: 'es' });
    await editor.goto(`${app.server.url}/app/profile/`);
    await editor.locator('.photo-make-primary').waitFor();
    await entryAnimationsDone(editor);
    found.push(...(await small(editor, '.top-bar .logo')), ...(await small(editor, '.top-bar .lang-switch button')), ...(await small(editor, '.photo-action')));
    for (const width of [390, 320]) {
      await editor.setViewportSize({ width, height: 844 });
      await editor.getByLabel(es['profile.dateOfBirth']).click();
      await editor.locator('.date-popover').waitFor();
      found.push(...(await small(editor, '.date-step')), ...(await small(editor, '.date-day')));
      await editor.keyboard.press('Escape');
    }
    // A file that is not a photo: the toast that says so, and its ×.
    await editor.getByTestId('photo-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('notes') });
    await editor.locator('.toast-close').waitFor();
    found.push(...(await small(editor, '.toast-close')));
    await context.close();
    // A chat's header: back, the partner's avatar and name (their profile), the menu.
    await signedIn.page.goto(`${app.server.url}/app/chat/${conversationId}/`);
    await signedIn.page.getByText('¿Dónde estás?').waitFor();
    found.push(...(await small(signedIn.page, '.chat-header a, .chat-header button')));
    expect(found).toEqual([]);
  });

  it('keeps the focus on the top bar’s language switch of a 320 px phone, which shows only the other language, as a key switches', async () => {
    const page = signedIn.page;
    await page.setViewportSize({ width: 320, height: 640 });
    try {
      await page.goto(`${app.server.url}/app/settings/`);
      await page.locator('main h1').waitFor();
      /** What has the focus, if it shows (and its text is not drawn in its background's colour): its name. */
      const focused = () =>
        page.evaluate(() => {
          const element = document.activeElement;
          if (!element || element === document.body || !element.getClientRects().length) return null;
          const { color, backgroundColor } = getComputedStyle(element);
          return color === backgroundColor ? `${element.getAttribute('aria-label')}, unreadable` : element.getAttribute('aria-label');
        });
      await page.getByRole('button', { name: 'EN, English' }).focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.documentElement.lang === 'en');
      expect(await focused()).toBe('EN, English');
      // The other language shows beside it, the way back.
      await page.keyboard.press('Shift+Tab');
      expect(await focused()).toBe('ES, Español');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.documentElement.lang === 'es');
      expect(await focused()).toBe('ES, Español');
    } finally {
      await page.setViewportSize({ width: 390, height: 844 });
    }
  });

  it('scrolls each control the keyboard moves to into view, clear of the bars and the profile’s save button', async () => {
    const page = signedIn.page;
    for (const path of ['/app/settings/', '/app/profile/']) {
      await page.goto(`${app.server.url}${path}`);
      await page.locator('main h1, .edit-profile .field').first().waitFor();
      await entryAnimationsDone(page);
      const covered: string[] = [];
      for (let step = 0; step < 50; step += 1) {
        await page.keyboard.press('Tab');
        const where = await page.evaluate(() => {
          const element = document.activeElement;
          if (!(element instanceof HTMLElement) || element === document.body || element.closest('.top-bar, .bottom-nav, .sticky-save')) return null;
          const box = element.getBoundingClientRect();
          const top = document.querySelector('.top-bar')!.getBoundingClientRect().bottom;
          const bars = [...document.querySelectorAll('.bottom-nav, .sticky-save')].map((bar) => bar.getBoundingClientRect().top);
          if (box.top >= top && box.bottom <= Math.min(...bars)) return null;
          return `${element.tagName.toLowerCase()} "${element.getAttribute('aria-label') ?? element.textContent?.trim().slice(0, 40)}"`;
        });
        if (where) covered.push(where);
      }
      expect(covered, path).toEqual([]);
    }
  });

  it('a subscriber’s screens: the current plan and the people who like them', async () => {
    await subscribeThroughTestCheckout(app.server, ana);
    const page = signedIn.page;
    // Dan likes Ana now that she can see who: a card with a name and a photo, not a placeholder.
    const dan = await makeCompletedUser(app.server, { name: 'Dan', gender: 'male', genders_to_match: ['female'] }, { firstName: 'Dan' });
    await client(app.server.url).post('/api/matching/', { token: dan.token, json: { response: 'like', other: ana.id } });
    expect(await auditPage(page, '/app/likes/', '[data-testid="like-card"]'), '/app/likes/').toEqual([]);
    expect(await auditPage(page, '/app/subscribe/', '.current-plan'), '/app/subscribe/').toEqual([]);
  });
});
