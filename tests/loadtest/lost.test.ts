import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartyResult } from '../../loadtest/party';
import { createPostgresDatabase } from '../helpers/database';
import { serverPerSuite } from '../helpers/server';
import { hasPostgres } from '../helpers/services';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * A deployment mistake the tool must catch: two instances on one database but without Redis between
 * them. Each acknowledges and stores every message, but a socket on the other instance never hears of
 * it, so the tool must report it lost and exit 1.
 */
describe.skipIf(!(await hasPostgres()))('npm run loadtest: a lost message fails the run', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let dir: string;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    dir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-loadtest-lost-'));
  });
  afterAll(async () => {
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const instance = () => ({ backend: 'postgres' as const, databaseUrl: database.url, config: { limitMultiplier: 1000, redisUrl: null } });
  const servers = [serverPerSuite(instance), serverPerSuite(instance)];

  it('two instances without Redis: overlays and messages across them are lost, exit 1', async () => {
    const json = path.join(dir, 'result.json');
    let stdout = '';
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(root, 'loadtest/cli.ts'),
          ...['--url', servers[0]!.url, '--instances', servers.map((server) => server.url).join(','), '--attendees', '30'],
          // Nobody leaves: a reconnect's catch-up would fetch what the socket missed. Every swipe a
          // like: ~25 matches, each within one instance about half the time, so the odds that no
          // overlay is delivered, or none lost, are about 1 in 10^7. (At the default 60 % likes
          // there were ~8 matches, and once in CI none of them within an instance.)
          ...['--minutes', '0.4', '--leave-share', '0', '--like-share', '1', '--json', json, '--state', path.join(dir, 'state.json')],
        ],
        { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] },
      );
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.on('exit', resolve);
    });
    const result = JSON.parse(await readFile(json, 'utf8')) as PartyResult;
    expect(result.counts.matches).toBeGreaterThan(0);
    // Pairs on one instance still work; across the two, the other phone never hears.
    expect(result.counts.match_overlays.delivered).toBeGreaterThan(0);
    expect(result.counts.match_overlays.lost).toBeGreaterThan(0);
    expect(result.counts.match_overlays.delivered + result.counts.match_overlays.lost).toBe(result.counts.match_overlays.expected);
    const m = result.counts.messages;
    expect(m.lost).toBe(m.acknowledged - m.delivered);
    expect(result.ok).toBe(false);
    expect(code).toBe(1);
    // The first few lost overlays are told with what the other phone went through (here usually
    // nothing: nobody leaves, though a socket may drop and come back).
    const told = stdout.split('\n').filter((line) => line.includes('a match overlay was lost: conversation'));
    expect(told).toHaveLength(Math.min(5, result.counts.match_overlays.lost));
    for (const line of told) {
      expect(line).toMatch(
        /^a match overlay was lost: conversation \d+, the like at [\d.]+ s; the other phone \(\d+\) (online|offline), its socket closed last at (never|[\d.]+ s) and connected at [\d.]+ s, its last catch-up (none|[\d.]+ s–([\d.]+ s|never), [012] of 2 lists read)$/,
      );
    }
  }, 90_000);
});
