import type postgres from 'postgres';
import { waitUntil } from './socket';

/**
 * A PostgreSQL connection of the test's own, to order a race: it holds a row or a lock in an open
 * transaction while the server's requests (or jobs) run into it, then lets go.
 */
export function lockHolder(holder: postgres.Sql) {
  /** How many connections to this database wait on a lock (a row's or an advisory one). */
  async function waiting(): Promise<number> {
    const [row] = await holder<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
    return row!.n;
  }

  return {
    /**
     * Runs `statement` in a transaction of the holder's, left open until the answer is called: rolled
     * back, or committed (a change the server's waiting work must then find made).
     */
    async hold(statement: string, params: (number | string)[] = []) {
      const session = await holder.reserve();
      await session`begin`;
      await session.unsafe(statement, params);
      return async (end: 'rollback' | 'commit' = 'rollback') => {
        await session.unsafe(end);
        session.release();
      };
    },
    waiting,
    /** Until `work` has finished, or `waiters` connections wait on a lock (it is as far as it can go); answers whether it finished. */
    async stuckOrDone(work: Promise<unknown>, waiters: number): Promise<boolean> {
      let done = false;
      const settle = () => (done = true);
      void work.then(settle, settle);
      await waitUntil(async () => done || (await waiting()) >= waiters, 5000, `done, or ${waiters} waiting on a lock`);
      return done;
    },
  };
}

export type LockHolder = ReturnType<typeof lockHolder>;
