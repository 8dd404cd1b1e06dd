import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.{ts,tsx}'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: each server test file starts its own app and database.
    maxWorkers: 2,
    // The end-to-end suites' one build of the client per run.
    globalSetup: ['tests/e2e/global-setup.ts'],
  },
});
