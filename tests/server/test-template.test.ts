/**
 * The PostgreSQL template the server tests copy (tests/helpers/database.ts): the templates of other
 * migrations go once no run has used them for long, never one a run may still copy from; a template
 * dropped under a run is made again.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, dropStaleTemplates, TEMPLATE_KEPT_MS, TEMPLATE_LOCK } from '../helpers/database';
import { hasPostgres, POSTGRES_ADMIN_URL } from '../helpers/services';

describe.skipIf(!(await hasPostgres()))('the migrated template of the PostgreSQL tests', () => {
  // Names of this test's own, under the real prefix: no other run's template is touched.
  const prefix = `test_template_t${randomBytes(4).toString('hex')}_`;
  // One connection: the template lock it takes is its session's.
  const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
  afterAll(async () => {
    for (const { datname } of await admin`select datname from pg_database where starts_with(datname, ${prefix})`) {
      await admin.unsafe(`drop database if exists "${datname}" with (force)`);
    }
    await admin.end();
  });

  const names = async () =>
    (await admin<Array<{ datname: string }>>`select datname from pg_database where starts_with(datname, ${prefix}) order by datname`).map(
      ({ datname }) => datname.slice(prefix.length),
    );
  async function make(name: string, usedAgoMs?: number) {
    await admin.unsafe(`create database "${prefix}${name}"`);
    if (usedAgoMs !== undefined) {
      await admin.unsafe(`comment on database "${prefix}${name}" is 'used ${new Date(Date.now() - usedAgoMs).toISOString()}'`);
    }
  }

  it('drops the templates of other migrations unused for long, and half-made ones; not one in use, nor recent ones', async () => {
    // Judged as of `later`: to any other run cleaning meanwhile (a worker starting), they are all recent.
    const long = TEMPLATE_KEPT_MS + 60_000;
    const later = Date.now() + long;
    await make('mine', 0);
    await make('old', 0);
    await make('recent', -120_000);
    // Made before templates said when they were used: judged by when it was made.
    await make('unstamped');
    await make('connected', 0);
    // Someone connected to it (psql, say): left alone.
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${prefix}connected`;
    const connected = postgres(url.toString(), { max: 1, onnotice: () => {} });
    await connected`select 1`;
    // Under the lock, as the helper drops them: no run makes a template meanwhile, nor drops one.
    await admin`select pg_advisory_lock(hashtextextended(${TEMPLATE_LOCK}, 0))`;
    try {
      await make('old_building');
      // As of now, all of them are recent: only the half-made one goes.
      expect(await dropStaleTemplates(admin, `${prefix}mine`, { prefix })).toEqual([`${prefix}old_building`]);
      expect(await dropStaleTemplates(admin, `${prefix}mine`, { prefix, now: later })).toEqual([`${prefix}old`, `${prefix}unstamped`]);
    } finally {
      await admin`select pg_advisory_unlock(hashtextextended(${TEMPLATE_LOCK}, 0))`;
      await connected.end();
    }
    expect(await names()).toEqual(['connected', 'mine', 'recent']);
    // Each of them once unused for long, and the one no longer connected to.
    expect(await dropStaleTemplates(admin, `${prefix}mine`, { prefix, now: later + 180_000 })).toEqual([`${prefix}connected`, `${prefix}recent`]);
    expect(await names()).toEqual(['mine']);
  });

  it('makes its template again when it was dropped under the run, and says when it used it', async () => {
    const template = `${prefix}remade`;
    const first = await createPostgresDatabase({ migrated: true, template });
    await first.drop();
    const [stamp] = await admin<Array<{ comment: string }>>`select shobj_description(oid, 'pg_database') as comment from pg_database where datname = ${template}`;
    expect(Date.now() - Date.parse(stamp!.comment.replace(/^used /, ''))).toBeLessThan(60_000);
    // Another run's cleaning dropped it: this run's next copy makes it again.
    await admin.unsafe(`drop database "${template}" with (force)`);
    const second = await createPostgresDatabase({ migrated: true, template });
    const copy = postgres(second.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await copy`select count(*)::int as n from users`;
      expect(row!.n).toBe(0);
    } finally {
      await copy.end();
      await second.drop();
    }
  });
});
