/**
 * The deck and the message history at 100,000 users and ~3,000,000 reactions on PostgreSQL:
 * the HTTP endpoint (the real app in its own process, driven by autocannon) beside the same SQL run
 * directly (postgres.js, same statement text and parameters, sent the same way, same pool size), at
 * full load and at half of the endpoint's measured maximum, each row with its CPU per request (the
 * PostgreSQL backends, the app, the generator, from /proc); then where PostgreSQL's CPU per deck
 * request goes, EXPLAIN ANALYZE of both queries, and the figures against the targets.
 *
 *   npm run bench:deck                       # seeds bench_deck once, then reuses it
 *   npm run bench:deck -- --fresh            # drop and seed again
 *   npm run bench:deck -- --duration 15 --connections 16
 *   npm run bench:deck -- --only deck --profile /tmp/prof   # one endpoint; the app writes a CPU profile
 *
 * BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres) is the admin connection;
 * BENCH_NODE_FLAGS adds node flags to the app's process, after `npm run serve`'s own (e.g. "--trace-gc").
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DECK_PAGE_SIZE, MESSAGES_PAGE_SIZE } from '../shared/constants';
import { DEFAULT_POOL_SIZE } from '../server/config';
import { messagePage } from '../server/features/conversations/queries';
import { deckQuery, type ViewerFit, viewerFitStatement } from '../server/features/deck/queries';
import { hashToken, newToken } from '../server/lib/tokens';
import {
  APP_CONNECTIONS,
  CpuMeter,
  databaseUrl,
  deckCostRows,
  ensureSeeded,
  explain,
  type Figures,
  http as autocannonHttp,
  httpGetter as keptAliveGetter,
  loop,
  namedConnections,
  perOperation,
  printBudget,
  rawClients,
  sendDeckAsTheAppDoes,
  startApp as startBundledApp,
  statementTimings,
  table,
  targetsTable,
  uptime,
} from './lib';

const { values: args } = parseArgs({
  options: {
    fresh: { type: 'boolean', default: false },
    users: { type: 'string', default: '100000' },
    'reactions-per-user': { type: 'string', default: '31' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    only: { type: 'string' },
    profile: { type: 'string' },
  },
});
if (args.only && !['deck', 'history'].includes(args.only)) throw new Error('--only takes deck or history');
const USERS = Number(args.users);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
// The app's own pool size (its default): the raw loop's pools get the same (`rawClients`).
const POOL = DEFAULT_POOL_SIZE;
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'bench_deck';
const dbUrl = databaseUrl(ADMIN_URL, DB_NAME);
const startApp = (dataDir: string) =>
  startBundledApp({ databaseUrl: namedConnections(dbUrl, APP_CONNECTIONS), dataDir, profileDir: args.profile });
const http = (label: string, url: string, next: () => { path: string; token: string }, connections = CONNECTIONS) =>
  autocannonHttp(label, url, next, { connections, duration: connections === 1 ? Math.max(3, DURATION / 2) : DURATION });
const httpGetter = (url: string) => keptAliveGetter(url, CONNECTIONS);

/** The deck bench's crowd: nobody but the demo user at the demo event, so every viewer has the general deck. */
const ensureDatabase = (dataDir: string) =>
  ensureSeeded({
    adminUrl: ADMIN_URL,
    name: DB_NAME,
    fresh: args.fresh,
    dataDir,
    seed: { users: USERS, reactionsPerUser: Number(args['reactions-per-user']), matchRate: 0.2, photos: 24, eventAttendees: 0 },
  });

interface Run {
  rawFull: Figures;
  httpFull: Figures;
  httpHalf: Figures;
  rawHalf: Figures;
}

async function main() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-deck-'));
  await ensureDatabase(dataDir);

  // The raw baseline's connections, set up as the app's: the main pool, and the deck's own pool.
  const { raw, rawDeck } = rawClients(dbUrl, POOL);
  // Sample viewers (completed profiles) and conversations with at least a page of history, each
  // with a fresh token, so that the endpoint and the raw loop read the same rows.
  const viewers = (
    await raw<{ id: number }[]>`select user_id as id from profiles where is_completed order by random() limit 1000`
  ).map((row) => ({ id: row.id, token: newToken() }));
  const chats = (
    await raw<{ id: number; user_id: number }[]>`
      select c.id, c.user_low_id as user_id from conversations c
      where (select count(*) from messages m where m.conversation_id = c.id) >= ${MESSAGES_PAGE_SIZE}
      order by random() limit 500`
  ).map((row) => ({ id: row.id, userId: row.user_id, token: newToken() }));
  const tokens = [
    ...viewers.map((v) => ({ token_hash: hashToken(v.token), user_id: v.id })),
    ...chats.map((c) => ({ token_hash: hashToken(c.token), user_id: c.userId })),
  ];
  await raw`insert into auth_tokens ${raw(tokens)}`;
  const [sizes] = await raw`select (select count(*) from users) as users, (select count(*) from reactions) as reactions,
    (select count(*) from conversations) as conversations, (select count(*) from messages) as messages`;
  console.log(
    `Data: ${sizes?.users} users, ${sizes?.reactions} reactions, ${sizes?.conversations} conversations, ${sizes?.messages} messages; ` +
      `${viewers.length} viewers and ${chats.length} conversations (≥ ${MESSAGES_PAGE_SIZE} messages) sampled.`,
  );

  // The endpoint reads the viewer's fit values (a primary-key read) and then runs the deck statement;
  // the raw loop runs only the deck statement, with those values read once up front.
  const fits = new Map<number, ViewerFit>();
  for (const viewer of viewers) {
    const values = { userId: viewer.id };
    const [fit] = await raw.unsafe<ViewerFit[]>(viewerFitStatement.text, viewerFitStatement.params(values) as never[]);
    if (fit) fits.set(viewer.id, fit);
  }
  const fitOf = (i: number) => fits.get(viewers[i % viewers.length]!.id)!;
  const deck = (i: number) => deckQuery(fitOf(i), null, DECK_PAGE_SIZE + 1);
  const runDeck = (i: number) => sendDeckAsTheAppDoes(rawDeck, fitOf(i));
  const runHistory = (i: number) => {
    const chat = chats[i % chats.length]!;
    const values = { conversationId: chat.id, userId: chat.userId, bound: 0, limit: MESSAGES_PAGE_SIZE + 1 };
    return raw.unsafe(messagePage.newest.text, messagePage.newest.params(values) as never[], { prepare: true });
  };

  const { url, child } = await startApp(dataDir);
  const meter = new CpuMeter(dbUrl, child.pid ?? null);
  const runs = new Map<string, Run>();
  let costs: Awaited<ReturnType<typeof deckCostRows>> | null = null;
  try {
    // Warm both paths (caches, JIT, every connection of both pools), then measure.
    await loop('warm-up', runDeck, { seconds: 2, concurrency: CONNECTIONS });
    let n = 0;
    const nextDeck = () => {
      const viewer = viewers[n++ % viewers.length]!;
      return { path: '/api/users/matching-profiles/', token: viewer.token };
    };
    const nextChat = () => {
      const chat = chats[n++ % chats.length]!;
      return { path: `/api/conversations/${chat.id}/messages/`, token: chat.token };
    };
    await http('warm-up', url, nextDeck);

    const endpoints = [
      // Each raw loop sends its statement as the app does: the deck named on the custom-plan pool
      // (runWithCustomPlan), the history named on the main pool (PreparedStatement).
      ['deck', `Deck (GET /api/users/matching-profiles/, ${DECK_PAGE_SIZE} cards)`, runDeck, nextDeck],
      ['history', `Message history (GET /api/conversations/:id/messages/, last ${MESSAGES_PAGE_SIZE})`, runHistory, nextChat],
    ] as const;
    for (const [name, title, runRaw, next] of endpoints) {
      if (args.only && args.only !== name) continue;
      console.log(`\n${title}: load ${uptime()}`);
      const rawFull = await meter.measure(() => loop(`raw SQL, ${CONNECTIONS} in flight`, runRaw, { seconds: DURATION, concurrency: CONNECTIONS }));
      const httpFull = await meter.measure(() => http(`HTTP, ${CONNECTIONS} connections`, url, next));
      const half = Math.max(1, Math.round(httpFull.throughput / 2));
      const getter = httpGetter(url);
      const httpHalf = await meter.measure(() =>
        loop(`HTTP at half load (${half} req/s)`, () => getter.fetchOne(next()), { seconds: DURATION, concurrency: CONNECTIONS, rate: half }),
      );
      getter.close();
      const rawHalf = await meter.measure(() =>
        loop(`raw SQL at the same rate (${half} q/s)`, runRaw, { seconds: DURATION, concurrency: CONNECTIONS, rate: half }),
      );
      // One at a time: the per-request cost with no queueing at all.
      const rawOne = await meter.measure(() => loop('raw SQL, 1 in flight', runRaw, { seconds: Math.max(3, DURATION / 2), concurrency: 1 }));
      const httpOne = await meter.measure(() => http('HTTP, 1 connection', url, next, 1));
      table(title, [rawFull, httpFull, httpHalf, rawHalf, rawOne, httpOne]);
      console.log(
        `endpoint/raw throughput: ${(httpFull.throughput / rawFull.throughput).toFixed(2)}; ` +
          `p99 at half load: ${httpHalf.p99.toFixed(2)} ms against the raw SQL's ${rawHalf.p99.toFixed(2)} ms at that rate; ` +
          `load after: ${uptime()}`,
      );
      runs.set(name, { rawFull, httpFull, httpHalf, rawHalf });
    }

    // What an HTTP request costs the app and autocannon with no database and no deck: the floor of
    // the endpoint's side of the budget below.
    let bare: Figures | null = null;
    if (runs.has('deck')) {
      const token = viewers[0]!.token;
      bare = await meter.measure(() => http(`HTTP, ${CONNECTIONS} connections: GET /healthz (no database)`, url, () => ({ path: '/healthz', token })));
      table('A bare request, for the budget', [bare]);
    }

    if (args.only !== 'history') {
      costs = await deckCostRows({ meter, url: dbUrl, pool: POOL, seconds: Math.max(3, DURATION / 2), concurrency: CONNECTIONS, deck, fitOf });
    }

    // PostgreSQL's own timings do not include waiting for a CPU: on a busy machine they are the
    // steadier figure. Which path each plan took shows how the planner splits the viewers, and the
    // execution's time in reads from outside shared_buffers shows how much of it was the disk.
    const timings = await statementTimings(raw, deck, Math.min(400, viewers.length));
    console.log(
      `\nDeck statement over ${timings.count} viewers (EXPLAIN ANALYZE, one at a time): execution p50 ${timings.execution.p50} ms, ` +
        `p90 ${timings.execution.p90} ms, p99 ${timings.execution.p99} ms, max ${timings.execution.max} ms; ` +
        `planning p50 ${timings.planning.p50} ms, p99 ${timings.planning.p99} ms`,
    );
    console.log(
      `Of the execution, reading pages from outside shared_buffers: p50 ${timings.reading.p50} ms, p99 ${timings.reading.p99} ms ` +
        `(in ${timings.readingViewers} of ${timings.count} viewers)`,
    );
    console.log(`Unseen tier's path: ${[...timings.paths].map(([path, count]) => `${path} × ${count}`).join(', ')}`);

    const deckRun = runs.get('deck');
    if (deckRun) {
      const { httpFull, rawFull } = deckRun;
      console.log(
        `\nPostgreSQL CPU per deck request: ${perOperation(httpFull.cpu?.postgres, httpFull.count)} µs serving the endpoint ` +
          `(HTTP, ${CONNECTIONS} connections), ${perOperation(rawFull.cpu?.postgres, rawFull.count)} µs serving the raw statement ` +
          `(${CONNECTIONS} in flight); the statement's own execution p50 ${timings.execution.p50} ms + planning p50 ${timings.planning.p50} ms. ` +
          `The app's process: ${perOperation(httpFull.cpu?.app, httpFull.count)} µs per request.`,
      );
      if (costs) costs.print(httpFull);
      if (bare) printBudget('deck', deckRun, bare);
    }

    console.log('\nEXPLAIN ANALYZE, deck of one sampled viewer:\n');
    console.log(await explain(raw, deck(0)));
    console.log(`\nEXPLAIN ANALYZE, last ${MESSAGES_PAGE_SIZE} messages of one sampled conversation:\n`);
    const chat = chats[0]!;
    console.log(
      await explain(raw, {
        sql: messagePage.newest.text,
        params: messagePage.newest.params({ conversationId: chat.id, userId: chat.userId, bound: 0, limit: MESSAGES_PAGE_SIZE + 1 }),
      }),
    );

    const history = runs.get('history');
    targetsTable([
      ...(deckRun ? targetRows('deck', deckRun) : []),
      ...(history ? targetRows('message history (no target of its own; for comparison)', history) : []),
    ]);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    await meter.close();
    await raw`delete from auth_tokens where token_hash in ${raw(tokens.map((t) => t.token_hash))}`;
    await Promise.all([raw.end(), rawDeck.end()]);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The issue's two targets for one endpoint's runs. */
function targetRows(what: string, run: Run) {
  const ratio = run.httpFull.throughput / run.rawFull.throughput;
  return [
    { target: `${what}: endpoint / raw SQL throughput ≥ 0.9`, figure: ratio.toFixed(2), met: ratio >= 0.9 },
    {
      target: `${what}: p99 at half load ≤ raw SQL p99 at that rate + 5 ms`,
      figure: `${run.httpHalf.p99.toFixed(1)} ms against ${run.rawHalf.p99.toFixed(1)} + 5 ms`,
      met: run.httpHalf.p99 <= run.rawHalf.p99 + 5,
    },
  ];
}

await main();
