import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedCommand } from '../../scripts/seed';
import { lockEmbeddedDatabase } from '../../server/db/embedded-lock';

/** `npm run seed`'s answers that come before any seeding: none of them opens a database. */
describe('the seed command', () => {
  const lines: string[] = [];
  const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
  const dirs: string[] = [];
  const dataDir = async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-seed-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    lines.length = 0;
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('says how to use it, for --help and for a flag it does not know', async () => {
    expect(await seedCommand(['--help'], {}, out as never)).toBe(0);
    expect(lines.pop()).toMatch(/^Usage: npm run seed -- \[--users N\] \[--event-attendees M\]/);
    expect(await seedCommand(['--user', '5'], {}, out as never)).toBe(2);
    expect(lines.pop()).toMatch(/^Unknown option '--user'.*\nUsage: npm run seed/s);
  });

  it('refuses a number it cannot use before it writes anything', async () => {
    const dir = await dataDir();
    expect(await seedCommand(['--users', '5', '--event-attendees', 'lots'], { DATA_DIR: dir }, out as never)).toBe(2);
    expect(lines.pop()).toMatch(/^Not a number it can use: --event-attendees lots\.\nUsage: npm run seed/);
    expect(await seedCommand(['--users', '1'], { DATA_DIR: dir }, out as never)).toBe(2);
    expect(lines.pop()).toMatch(/^Not a number it can use: --users 1\./);
    expect(await seedCommand(['--match-rate', '2', '--photos', '0'], { DATA_DIR: dir }, out as never)).toBe(2);
    expect(lines.pop()).toMatch(/^Not a number it can use: --match-rate 2, --photos 0\./);
    // No database made, no photo written: a run with a bad flag leaves no half-seeded batch.
    expect(await readdir(dir)).toEqual([]);
  });

  it('says in one line that a running server holds the embedded database', async () => {
    const dir = await dataDir();
    await mkdir(path.join(dir, 'db'));
    // This process holds it, as the server would.
    const release = lockEmbeddedDatabase(path.join(dir, 'db'));
    try {
      expect(await seedCommand(['--users', '2'], { DATA_DIR: dir }, out as never)).toBe(1);
      expect(lines.pop()).toBe(
        `The embedded database in ${path.join(dir, 'db')} is in use by a running server (pid ${process.pid}).\n` +
          'Stop the server first, then seed again (or set DATABASE_URL to seed PostgreSQL).',
      );
    } finally {
      release();
    }
    expect(await seedCommand(['--users', '2'], { DATA_DIR: dir, DATABASE_URL: 'notaurl' }, out as never)).toBe(1);
    expect(lines.pop()).toBe('Configuration error: DATABASE_URL must be a PostgreSQL address such as postgres://user:password@host:5432/eventmatch.');
  });
});
