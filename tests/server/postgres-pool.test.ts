/**
 * Which of its idle connections a postgres.js pool gives a statement to. patches/postgres+3.4.9.patch
 * makes it the one that went idle last, as PgBouncer does: under a light load a few backends serve
 * everything with warm caches, where the longest idle one (the package's own choice) sent each statement
 * to the backend the others had run over since (patches/README.md).
 */
import net from 'node:net';
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

describe.skipIf(!available)('a postgres.js connection ended as it opens (patched)', () => {
  /** PostgreSQL's answer to a backend ended by pg_terminate_backend (or a shutdown): FATAL 57P01, then the close. */
  const terminated = () => {
    const fields = Buffer.from('SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(fields.length + 4);
    return Buffer.concat([Buffer.from('E'), length, fields]);
  };

  it('fails only its first statement, with nothing unhandled, when its backend is ended as it reads the array types', async () => {
    const created = await createPostgresDatabase();
    const target = new URL(created.url);
    const rejections: unknown[] = [];
    const note = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', note);
    // In front of PostgreSQL: the first connection's backend is ended the moment it asks for the
    // array types (its first statement), as pg_terminate_backend ends it.
    let ended = false;
    const proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) socket.on('error', () => {});
      client.on('data', (chunk: Buffer) => {
        if (!ended && chunk.includes('typarray')) {
          ended = true;
          upstream.destroy();
          client.end(terminated());
          return;
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => client.write(chunk));
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const url = new URL(created.url);
    url.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
    const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      // The statement waiting for that connection fails, as any on an ended backend does (a socket
      // send is then answered `internal` and sent again)...
      await expect(sql`select 1`).rejects.toMatchObject({ code: '57P01' });
      expect(ended).toBe(true);
      // ...and the next one is answered on a new connection.
      expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
      // Nothing left unhandled: unhandled, it ends the server (server/process.ts) with all its sockets.
      await new Promise((resolve) => setImmediate(resolve));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', note);
      await sql.end();
      await new Promise((resolve) => proxy.close(resolve));
      await created.drop();
    }
  });
});
