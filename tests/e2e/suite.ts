/**
 * What an end-to-end suite runs against, started before its tests and closed after them. Apart from
 * helpers.ts, which the benchmarks import outside vitest.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../server/config';
import { memorySnapshot } from '../helpers/database';
import { startServer, type TestServer } from '../helpers/server';
import { buildClient, launchChromium, removeDir } from './helpers';

/** Its fields are set once the suite's first `beforeAll` has run. */
export interface SuiteApp {
  /** The production build of the client (a folder of its own: a test may change it). */
  clientDir: string;
  /** The real server, serving it. */
  server: TestServer;
  /** The worker's Chromium (see workerChromium); the suite's contexts are closed after it, with their pages. */
  browser: Browser;
}

/** This worker's Chromium, once a suite has asked for it (see workerChromium). */
let launched: Promise<Browser> | undefined;

/**
 * The worker's Chromium, launched for its first suite and kept for the next: a worker of the server
 * project runs its files one after another in one process, its modules imported once (isolate:
 * false), and a launch and a close of Chromium for each file took a second or more of a core.
 * Nothing of one suite reaches the next: each of its pages is in a context of its own (openPhone,
 * openLaptop), with its own cookies, storage, service workers and routes, and the suite closes every
 * context after its tests. Launched again if it went away (a crash): one suite's crash would
 * otherwise fail every suite after it in the worker. It ends with the worker: on vitest's SIGTERM
 * playwright closes the browsers it launched, and Chromium quits by itself once the pipe to a killed
 * worker closes.
 */
async function workerChromium(): Promise<Browser> {
  const running = await launched?.catch(() => undefined);
  if (running?.isConnected()) return running;
  launched = launchChromium();
  return launched;
}

/**
 * Registers the hooks that start a suite's app before its tests (a build of the client, the server
 * serving it with `config`, the worker's Chromium) and close it all after them (of Chromium, the
 * suite's contexts). Call it in the suite's `describe` before hooks of its own: those run after it,
 * and their `afterAll` before its own. A function gives a config that needs what an earlier hook set
 * up.
 */
export function appInChromium(config: Partial<Config> | (() => Partial<Config>) = {}): SuiteApp {
  const suite = {} as SuiteApp;
  beforeAll(async () => {
    // Side by side: Chromium starts, and the first suite of a run builds the client while it makes
    // the run's migrated database (seconds of a core each), where the server would wait for the build.
    // All of them settled before a failure is told: `afterAll` then closes what did start.
    const started = await Promise.allSettled([
      workerChromium().then((browser) => (suite.browser = browser)),
      buildClient().then((clientDir) => (suite.clientDir = clientDir)),
      memorySnapshot(),
    ]);
    for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
    suite.server = await startServer({ config: { ...(typeof config === 'function' ? config() : config), clientDir: suite.clientDir } });
  }, 120_000);
  afterAll(async () => {
    // Every context the suite opened, its pages with it (a test may leave some open). The browser
    // stays for the worker's next suite.
    if (suite.browser?.isConnected()) await Promise.all(suite.browser.contexts().map((context) => context.close()));
    await suite.server?.close();
    await removeDir(suite.clientDir);
  });
  return suite;
}
