import { sql } from 'drizzle-orm';
import type { TestServer } from './server';

/**
 * Has the server's new users numbered from `first` on. Servers of one process (a test's) share what
 * the server keeps per process by user id: a profile save refused (429) while another of the same id
 * is on its way (server/features/users/routes.ts). Servers that register users side by side, each
 * with its own database, must not number them alike.
 */
export async function userIdsFrom(server: TestServer, first: number) {
  await server.app.db.execute(sql`select setval(pg_get_serial_sequence('users', 'id'), ${first - 1})`);
}
