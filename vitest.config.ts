import { defineConfig } from 'vitest/config';
import { PartiesSpread } from './tests/sequencer';

/**
 * The client's tests that a VM context cannot run, each in a process of its own: a real server's
 * CommonJS dependencies that load ES modules (Node's own loader can, a VM context's cannot), and a
 * stub of `window.location`, which a VM context's window holds unforgeable.
 */
const CLIENT_IN_PROCESSES = [
  'tests/client/catch-up-lists.test.ts',
  'tests/client/deck-skipped-elsewhere.test.ts',
  'tests/client/deck-undone-elsewhere.test.ts',
  'tests/client/event-toasts-organizer.test.ts',
  'tests/client/host-deleted-elsewhere.test.ts',
  'tests/client/language-before-sign-in.test.tsx',
  'tests/client/likes-left-answers.test.ts',
  'tests/client/likes-left-elsewhere.test.ts',
  'tests/client/likes-skipped-elsewhere.test.ts',
  'tests/client/likes-unblocked.test.ts',
  'tests/client/password-change-lost.test.tsx',
  'tests/client/plan-account-changed.test.ts',
  'tests/client/safety.test.tsx',
  'tests/client/session-suspended.test.ts',
  'tests/client/signed-in-elsewhere.test.tsx',
];

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: each server test file starts its own app and database.
    maxWorkers: 2,
    sequence: { sequencer: PartiesSpread },
    projects: [
      {
        extends: true,
        test: {
          // The client's stores and its api module are module-level state, and its tests mock them
          // (vi.mock) file by file: each file in a fresh module graph, here a fresh VM context in a
          // worker that stays. A new process and jsdom for each file took two thirds of their time.
          name: 'client',
          include: ['tests/client/**/*.test.{ts,tsx}'],
          exclude: CLIENT_IN_PROCESSES,
          pool: 'vmForks',
          setupFiles: ['tests/helpers/dom-waits.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'client-in-processes',
          include: CLIENT_IN_PROCESSES,
          setupFiles: ['tests/helpers/dom-waits.ts'],
          // Their servers' one migrated in-memory database, shared with the server suites.
          globalSetup: ['tests/helpers/memory-snapshot-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          // The server, realtime, end-to-end and load-tool suites keep no state between files (each
          // starts its own app and database, and opens its own browser contexts), so a worker imports
          // the server's modules once for all of its files, not once a file: a fifth of the run's time
          // went to those imports. Its Chromium serves all of its end-to-end files (tests/e2e/suite.ts).
          name: 'server',
          include: ['tests/**/*.test.{ts,tsx}'],
          exclude: ['tests/client/**'],
          isolate: false,
          // The end-to-end suites' one build of the client per run, and the servers' one migrated
          // in-memory database.
          globalSetup: ['tests/e2e/global-setup.ts', 'tests/helpers/memory-snapshot-setup.ts'],
        },
      },
    ],
  },
});
