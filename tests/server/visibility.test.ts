/**
 * The visibility rule is written once per rule, in two shapes (server/features/safety/visibility.ts):
 * the set of people hidden from a viewer, and the test of one pair. Over a crowd with every kind of
 * relation between its people, the two shapes must agree for every ordered pair, and be symmetric.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/client';
import { conversations } from '../../server/db/schema';
import { conversationColumns, openConversationOf, visibleAmong, visibleTo } from '../../server/features/safety/visibility';
import { makeUser } from '../helpers/factories';
import { backends, serverPerSuite } from '../helpers/server';

describe.each(backends)('the visibility rule on %s', (backend) => {
  const server = serverPerSuite({ backend });

  it('says the same in its set and pair shapes, both ways, for every pair of a mixed crowd', async () => {
    const db = server.app.db;
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) ids.push((await makeUser(server)).id);
    const [a, b, c, d, e, f, g, h] = ids as [number, number, number, number, number, number, number, number];
    const pair = (x: number, y: number) => (x < y ? [x, y] : [y, x]);
    // a blocks b; c and d unmatched; e is banned; f and g share an open conversation; g and h one ended by a block (unblocked since).
    await db.execute(sql`insert into blocks (blocker_id, blocked_id) values (${a}, ${b})`);
    const [cd1, cd2] = pair(c, d);
    await db.execute(sql`insert into conversations (user_low_id, user_high_id, ended_at, end_reason) values (${cd1}, ${cd2}, now(), 'unmatch')`);
    await db.execute(sql`update users set banned_at = now() where id = ${e}`);
    const [fg1, fg2] = pair(f, g);
    await db.execute(sql`insert into conversations (user_low_id, user_high_id) values (${fg1}, ${fg2})`);
    const [gh1, gh2] = pair(g, h);
    await db.execute(sql`insert into conversations (user_low_id, user_high_id, ended_at, end_reason) values (${gh1}, ${gh2}, now(), 'block')`);

    // c also shares an open conversation with f: an unmatch hides the pair it ended, no other.
    const [cf1, cf2] = pair(c, f);
    await db.execute(sql`insert into conversations (user_low_id, user_high_id) values (${cf1}, ${cf2})`);

    const hiddenPairs = new Set([`${a}-${b}`, `${c}-${d}`, ...ids.filter((id) => id !== e).map((id) => `${Math.min(id, e)}-${Math.max(id, e)}`)]);
    for (const x of ids) {
      const among = new Set(
        rowsOf<{ id: number }>(
          await db.execute(sql`select u.id from users u where u.id in (${sql.join(ids, sql`, `)}) and ${visibleAmong(x, sql`u.id`)}`),
        ).map((row) => Number(row.id)),
      );
      for (const y of ids) {
        if (x === y) continue;
        const [row] = rowsOf<{ visible: boolean }>(await db.execute(sql`select ${visibleTo(x, y)} as visible`));
        const expected = !hiddenPairs.has(`${Math.min(x, y)}-${Math.max(x, y)}`);
        expect(row!.visible, `${x} → ${y}`).toBe(expected);
        expect(among.has(y), `${y} among those ${x} may see`).toBe(expected);
      }
      // The pair shape given columns of a table the rules read themselves (users here): the same answers.
      const byColumn = rowsOf<{ id: number }>(
        await db.execute(sql`select users.id from users where users.id in (${sql.join(ids, sql`, `)}) and users.id <> ${x}
          and ${visibleTo(x, sql`users.id`)}`),
      ).map((row) => Number(row.id));
      expect(new Set(byColumn), `those ${x} may see, by column`).toEqual(new Set([...among].filter((id) => id !== x)));
    }

    // One conversation, named by the table's own columns (as the participants statement names it).
    const openTo = async (viewer: number) =>
      rowsOf<{ id: number }>(
        await db.execute(sql`select ${conversations.id} as id from ${conversations}
          where ${conversations.userLowId} in (${sql.join(ids, sql`, `)}) and ${openConversationOf(viewer, conversationColumns)}`),
      ).length;
    expect(await openTo(c), 'c: the conversation with f, not the one with d').toBe(1);
    expect(await openTo(d), 'd: none').toBe(0);
    expect(await openTo(f), 'f: with g and with c').toBe(2);
  });
});
