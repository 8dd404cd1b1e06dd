/**
 * Which of its idle connections a postgres.js pool gives a statement to. patches/postgres+3.4.9.patch
 * makes it the one that went idle last, as PgBouncer does: under a light load a few backends serve
 * everything with warm caches, where the longest idle one (the package's own choice) sent each statement
 * to the backend the others had run over since (patches/README.md).
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase } from '../helpers/database';
import { hasPostgres } from '../helpers/services';

const available = await hasPostgres();
const MAX = 4;

describe.skipIf(!available)("a postgres.js pool's idle connections (patched)", () => {
  let created: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let sql: postgres.Sql;

  beforeAll(async () => {
    created = await createPostgresDatabase();
    sql = postgres(created.url, { max: MAX, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql?.end();
    await created?.drop();
  });

  const backend = async (sleepMs = 0) => (await sql<{ pid: number }[]>`select pg_backend_pid() as pid, pg_sleep(${sleepMs / 1000})`)[0]!.pid;

  it('gives each statement the connection that went idle last', async () => {
    // Every connection opened by a burst, then idle.
    const burst = await Promise.all(Array.from({ length: MAX }, () => backend(20)));
    expect(new Set(burst).size).toBe(MAX);

    const oneAtATime: number[] = [];
    for (let i = 0; i < 3 * MAX; i++) oneAtATime.push(await backend());
    // One backend for all: the longest idle first would have gone round all four, three times.
    expect(oneAtATime).toEqual(Array(3 * MAX).fill(oneAtATime[0]));
    expect(burst).toContain(oneAtATime[0]);
  });

  it('reserves the connection that went idle last too', async () => {
    const last = await backend();
    const reserved = await sql.reserve();
    try {
      expect((await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid).toBe(last);
    } finally {
      reserved.release();
    }
  });
});
