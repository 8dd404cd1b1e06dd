/**
 * Debian's Chromium through playwright-core, and a built client served by the real server.
 * Without /usr/bin/chromium the e2e tests skip with a loud warning; under CI=true they fail instead.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { build } from 'vite';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ROOT = path.resolve(import.meta.dirname, '../..');
export const ARTIFACTS = path.join(ROOT, 'tests', 'e2e', 'artifacts');
export const PHONE = { width: 390, height: 844 } as const;

export function hasChromium(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const message = `Chromium is not installed at ${CHROMIUM_PATH} (apt-get install -y chromium)`;
  if (process.env.CI === 'true') throw new Error(`${message}: CI must run the end-to-end tests.`);
  console.warn(`\n⚠️  SKIPPED: ${message}; the browser tests are skipped on this machine.\n`);
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

/** A production build of the client in a temp folder; the caller removes it. */
export async function buildClient(): Promise<string> {
  const outDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-client-'));
  await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  await mkdir(ARTIFACTS, { recursive: true });
  return outDir;
}

export const removeDir = (dir: string | undefined) => (dir ? rm(dir, { recursive: true, force: true }) : Promise.resolve());
