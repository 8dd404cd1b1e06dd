/**
 * Debian's Chromium through playwright-core, and a built client served by the real server.
 * Without /usr/bin/chromium the e2e tests skip with a loud warning; under CI=true they fail instead.
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { DECK_MATCH_OVERLAY_MS } from '../../shared/constants';
import { makeOncePerRun } from '../helpers/once-per-run';
import type { TestServer } from '../helpers/server';
import { RUN_BUILD_DIR } from './global-setup';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ROOT = path.resolve(import.meta.dirname, '../..');
export const ARTIFACTS = path.join(ROOT, 'tests', 'e2e', 'artifacts');
export const PHONE = { width: 390, height: 844 } as const;

/**
 * Whether the suites save their pictures of the screens (tests/e2e/artifacts/), for a person to look
 * at: no assertion reads them. Not under CI, where nobody does and each PNG of a phone's 780×1688
 * pixels took a tenth to a third of a second of a core; E2E_SHOTS=1 keeps them there too.
 */
const KEEP_SHOTS = process.env.CI !== 'true' || process.env.E2E_SHOTS === '1';

/** A picture of the page as it is now, tests/e2e/artifacts/<name>.png, for a person to look at (see KEEP_SHOTS). */
export async function keepShot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (KEEP_SHOTS) await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), ...options });
}

export function hasChromium(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const message = `Chromium is not installed at ${CHROMIUM_PATH} (apt-get install -y chromium)`;
  if (process.env.CI === 'true') throw new Error(`${message}: CI must run the end-to-end tests.`);
  console.warn(`\n⚠️  SKIPPED: ${message}; the browser tests are skipped on this machine.\n`);
  return false;
}

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/**
 * A phone-sized Chromium with a profile on disk, as a person's browser has: what a fresh context
 * cannot tell (it is incognito), such as whether the app can be installed, it can.
 */
export function launchPhoneProfile(profileDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    viewport: PHONE,
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
}

/**
 * Without the app's service worker unless a test asks for it (`serviceWorkers: 'allow'`: the suites
 * about what it stores and serves). Each new context would otherwise install it, and it fetches and
 * stores every file of the build: a fifth of Chromium's CPU in a suite, in a run bound by CPU. And
 * `page.route` sees every request of a page that no worker controls.
 */
const WITHOUT_WORKER = 'block';

/**
 * A phone-sized page. With a session, the app opens signed in as that user in that language; only
 * on the first load, so that a logout during the test sticks.
 */
export async function openPhone(
  browser: Browser,
  session?: { token: string; language: 'en' | 'es' },
  options: { serviceWorkers?: 'allow' | 'block'; timezoneId?: string } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  return openSignedIn(
    await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true, serviceWorkers: WITHOUT_WORKER, ...options }),
    session,
  );
}

/**
 * A time zone in which it is about midday now, within half an hour (a whole number of hours from UTC,
 * with no summer time): a page in it that says "Today" of a message written a minute before cannot
 * have seen a midnight fall between the two, whenever the run is. Etc/GMT's sign is the other way
 * round from the offset's: Etc/GMT-5 is five hours ahead of UTC.
 */
export function middayZone(now = Date.now()): string {
  const at = new Date(now);
  const ahead = Math.round(12 - at.getUTCHours() - at.getUTCMinutes() / 60);
  return ahead === 0 ? 'Etc/GMT' : `Etc/GMT${ahead > 0 ? '-' : '+'}${Math.abs(ahead)}`;
}

/** A laptop's browser (1280×800): a mouse and a keyboard, no touch screen. */
export async function openLaptop(browser: Browser, session?: { token: string; language: 'en' | 'es' }): Promise<{ context: BrowserContext; page: Page }> {
  return openSignedIn(await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: WITHOUT_WORKER }), session);
}

/** A page in `context`, signed in as `session` (in its language) unless a language is set there already. */
async function openSignedIn(context: BrowserContext, session?: { token: string; language: 'en' | 'es' }): Promise<{ context: BrowserContext; page: Page }> {
  if (session) {
    await context.addInitScript(
      ([token, language]) => {
        if (localStorage.getItem('language_code')) return;
        localStorage.setItem('language_code', language as string);
        localStorage.setItem('auth_token', token as string);
      },
      [session.token, session.language],
    );
  }
  const page = await context.newPage();
  // Generous: the whole suite shares two cores with Chromium.
  page.setDefaultTimeout(15_000);
  return { context, page };
}

/**
 * Keeps the match overlay up, until the page next loads, for a check that takes longer than the
 * DECK_MATCH_OVERLAY_MS it shows: the page's timers of that length wait an hour instead. (Playwright's
 * paused clock would also stop the timers of the check itself, axe-core's among them.)
 */
export async function keepMatchOverlay(page: Page): Promise<void> {
  await page.evaluate((shown) => {
    const native = window.setTimeout;
    window.setTimeout = ((handler: TimerHandler, delay?: number, ...rest: unknown[]) =>
      native(handler, delay === shown ? 3_600_000 : delay, ...rest)) as typeof window.setTimeout;
  }, DECK_MATCH_OVERLAY_MS);
}

/**
 * A production build of the client in a temp folder of the caller's own (a test may change it), as
 * `npm start` serves it; the caller removes it. Under vitest, one build serves the whole run (see
 * tests/e2e/global-setup.ts), copied for each suite: the client does not change while the tests run,
 * and a build is most of a minute of a core.
 */
export async function buildClient(): Promise<string> {
  const outDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-client-'));
  const runBuilds = process.env[RUN_BUILD_DIR];
  if (runBuilds) await cp(await buildOfThisRun(runBuilds), outDir, { recursive: true });
  else await buildInto(outDir);
  await mkdir(ARTIFACTS, { recursive: true });
  return outDir;
}

/** The run's build, made by the first suite to ask. */
async function buildOfThisRun(root: string): Promise<string> {
  const dir = path.join(root, 'client');
  await makeOncePerRun(path.join(root, 'building'), path.join(root, 'built'), "the run's client build", () => buildInto(dir));
  return dir;
}

/**
 * Vite builds for the NODE_ENV it finds, and vitest's is "test": React's development build, with
 * StrictMode mounting every component twice, is not what a phone runs.
 */
async function buildInto(outDir: string) {
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}

export const removeDir = (dir: string | undefined) => (dir ? rm(dir, { recursive: true, force: true }) : Promise.resolve());

/**
 * Whether the element is on the screen as the page first shows it, whole and above the bottom nav:
 * where a thumb finds it without scrolling (the deck's buttons, a chat's composer).
 */
export async function aboveTheNav(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((wanted) => {
    const element = document.querySelector(wanted);
    const nav = document.querySelector('.bottom-nav');
    if (!element || !nav) throw new Error(`no ${element ? '.bottom-nav' : wanted} on the page`);
    const box = element.getBoundingClientRect();
    return window.scrollY === 0 && box.top >= 0 && box.height > 0 && box.bottom <= nav.getBoundingClientRect().top;
  }, selector);
}

/**
 * Until the deck's card on top takes taps of its buttons: one just come up takes none for a moment
 * (a tap then is the second of a double tap, not a decision about it). Keys and drags need no wait.
 */
export const deckSettled = (page: Page) => page.locator('[data-testid="swipe-card"][data-settled="true"]').waitFor();

/** Whether an overlay's history entry (a sheet's, a menu's, the profile guard's) is on top, as client/lib/back-closes.ts marks it. */
export const overlayOnTop = (page: Page) => page.evaluate(() => Boolean((history.state as Record<string, unknown> | null)?.overlay));

/**
 * After the entry animations end: a sheet or a toast half-way in would not show what a person sees.
 * (Playwright's `animations: 'disabled'` would also end a toast's countdown, and with it the toast.)
 */
export async function entryAnimationsDone(page: Page) {
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => {
          const target = (animation.effect as KeyframeEffect | null)?.target;
          return animation.effect?.getTiming().iterations !== Infinity && !target?.classList.contains('toast-progress');
        })
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
}

/** A gate a test opens when it chooses (a tab's socket held at its handshake, for one). */
export function opening() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * A slow server: its answers to the requests `url` matches, on a page or a whole context, held until
 * the function this resolves to is called.
 */
export async function holdAnswers(target: Page | BrowserContext, url: string | RegExp) {
  const gate = opening();
  await target.route(url, async (route) => {
    await gate.promise;
    await route.continue().catch(() => {});
  });
  return gate.open;
}

/**
 * Until the tab has handled every socket event the server sent the user before this call, for a test
 * that one of them left nothing on the screen: an `account:changed` sent after them reaches the tab after
 * them (one connection, in order), and has it read the user again (so the tab must be otherwise idle).
 */
export async function socketCaughtUp(page: Page, server: TestServer, userId: number) {
  const reread = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/users/me/');
  server.app.publish([userId], 'account:changed');
  await reread;
}

/**
 * A slow network for the tab's socket: what the server says goes through (its hello); what the tab
 * says, its handshake first, waits until the gate `gate()` gives (asked at each new connection) opens.
 */
export function holdSocketUntil(page: Page, gate: () => Promise<void>) {
  return page.routeWebSocket(/\/socket\.io\//, (ws) => {
    const opened = gate();
    const server = ws.connectToServer();
    ws.onMessage((message) => void opened.then(() => server.send(message)));
  });
}
