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
  /** Chromium, closed after the suite with every page it opened. */
  browser: Browser;
}

/**
 * Registers the hooks that start a suite's app before its tests (a build of the client, the server
 * serving it with `config`, Chromium) and close it all after them. Call it in the suite's `describe`
 * before hooks of its own: those run after it, and their `afterAll` before its own. A function gives
 * a config that needs what an earlier hook set up.
 */
export function appInChromium(config: Partial<Config> | (() => Partial<Config>) = {}): SuiteApp {
  const suite = {} as SuiteApp;
  beforeAll(async () => {
    // Side by side: Chromium starts, and the first suite of a run builds the client while it makes
    // the run's migrated database (seconds of a core each), where the server would wait for the build.
    // All of them settled before a failure is told: `afterAll` then closes what did start.
    const started = await Promise.allSettled([
      launchChromium().then((browser) => (suite.browser = browser)),
      buildClient().then((clientDir) => (suite.clientDir = clientDir)),
      memorySnapshot(),
    ]);
    for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
    suite.server = await startServer({ config: { ...(typeof config === 'function' ? config() : config), clientDir: suite.clientDir } });
  }, 120_000);
  afterAll(async () => {
    // Its contexts and pages with it.
    await suite.browser?.close();
    await suite.server?.close();
    await removeDir(suite.clientDir);
  });
  return suite;
}
