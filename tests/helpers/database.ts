import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { POSTGRES_ADMIN_URL } from './services';

/** A fresh, empty PostgreSQL database for one test file; `drop()` removes it. */
export async function createPostgresDatabase() {
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const sql = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop database if exists "${name}" with (force)`);
      await sql.end();
    },
  };
}
