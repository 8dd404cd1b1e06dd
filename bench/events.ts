/**
 * Events at scale, on PostgreSQL, against the real app in its own process:
 *
 * 1. The scoped deck: viewers checked in to an event of 2,000 attendees among 100,000 users, over HTTP
 *    beside the same statement run raw (postgres.js, sent as the app sends it, the app's pool size) in
 *    the same run, at full load, at half load (open loop) and one at a time, each row with its CPU per
 *    request (PostgreSQL backends, the app, the generator, from /proc); and the same for viewers with
 *    the general deck, whose p99 the scoped deck's must not exceed. Then PostgreSQL's own timings of
 *    both statements, and the figures against the targets.
 * 2. Doors open: 1,000 check-ins to a new QR event within a minute (open loop, each with the door's
 *    current token), every attendee's socket connected beforehand: check-in latency beside a plain
 *    authenticated GET at the same rate, `event:count` messages per socket per second, and whether every
 *    socket's last count is exactly the final one.
 *
 *   npm run bench:events                                   # seeds bench_events once, then reuses it
 *   npm run bench:events -- --users 2000 --attendees 200 --burst 100 --burst-seconds 10   # a quick run
 *   npm run bench:events -- --fresh --only deck|burst
 *
 * BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres) is the admin connection.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type postgres from 'postgres';
import { DECK_PAGE_SIZE, EVENT_COUNT_INTERVAL_MS } from '../shared/constants';
import { DEMO_EVENT_NAME } from '../scripts/seed';
import { DEFAULT_POOL_SIZE } from '../server/config';
import { openDatabase } from '../server/db/client';
import { deckQuery, type ViewerFit, viewerFitStatement } from '../server/features/deck/queries';
import { createEvent } from '../server/features/events/service';
import { hashToken, newToken } from '../server/lib/tokens';
import { LeanSocket } from '../loadtest/lean-socket';
import {
  APP_CONNECTIONS,
  CpuMeter,
  databaseUrl,
  ensureSeeded,
  explain,
  type Figures,
  figuresOf,
  http,
  httpGetter,
  loop,
  namedConnections,
  perOperation,
  printBudget,
  rawClients,
  sendDeckAsTheAppDoes,
  startApp,
  statementTimings,
  table,
  type TargetRow,
  targetsTable,
  uptime,
} from './lib';

const { values: args } = parseArgs({
  options: {
    fresh: { type: 'boolean', default: false },
    users: { type: 'string', default: '100000' },
    attendees: { type: 'string', default: '2000' },
    'reactions-per-user': { type: 'string', default: '31' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    viewers: { type: 'string', default: '500' },
    burst: { type: 'string', default: '1000' },
    'burst-seconds': { type: 'string', default: '60' },
    only: { type: 'string' },
  },
});
if (args.only && !['deck', 'burst'].includes(args.only)) throw new Error('--only takes deck or burst');
const USERS = Number(args.users);
const ATTENDEES = Number(args.attendees);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const VIEWERS = Number(args.viewers);
const BURST = Number(args.burst);
const BURST_SECONDS = Number(args['burst-seconds']);
// The app's own pool size (its default): the raw loop's pools get the same (`rawClients`).
const POOL = DEFAULT_POOL_SIZE;
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'bench_events';
const dbUrl = databaseUrl(ADMIN_URL, DB_NAME);
const HOUR_MS = 3_600_000;

interface Viewer {
  id: number;
  token: string;
}

async function sampleViewers(raw: postgres.Sql, eventId: number, inside: boolean, count: number): Promise<Viewer[]> {
  const rows = inside
    ? await raw<{ id: number }[]>`
        select a.user_id as id from attendances a join profiles p on p.user_id = a.user_id
        where a.event_id = ${eventId} and a.left_at is null and p.is_completed order by random() limit ${count}`
    : await raw<{ id: number }[]>`
        select p.user_id as id from profiles p
        where p.is_completed and not exists (select 1 from attendances a where a.user_id = p.user_id and a.left_at is null)
        order by random() limit ${count}`;
  return rows.map((row) => ({ id: row.id, token: newToken() }));
}

async function deckRuns(raw: postgres.Sql, decks: { town: postgres.Sql; event: postgres.Sql }, url: string, eventId: number, meter: CpuMeter) {
  const groups = [
    { name: 'scoped', title: `Event deck (${ATTENDEES.toLocaleString('en')} attendees among ${USERS.toLocaleString('en')} users)`, viewers: await sampleViewers(raw, eventId, true, VIEWERS) },
    { name: 'general', title: 'General deck (viewers at no event), same run', viewers: await sampleViewers(raw, eventId, false, VIEWERS) },
  ];
  await raw`insert into auth_tokens ${raw(groups.flatMap((g) => g.viewers.map((v) => ({ token_hash: hashToken(v.token), user_id: v.id }))))}`;
  const summary = new Map<string, { rawFull: Figures; httpFull: Figures; httpHalf: Figures; rawHalf: Figures; timings: Awaited<ReturnType<typeof statementTimings>> }>();
  let interleaved: { rate: number; scoped: Figures; general: Figures } | null = null;
  let bare: Figures | null = null;
  try {
    for (const group of groups) {
      const fits: ViewerFit[] = [];
      for (const viewer of group.viewers) {
        const [fit] = await raw.unsafe<ViewerFit[]>(viewerFitStatement.text, viewerFitStatement.params({ userId: viewer.id }) as never[]);
        if (fit) fits.push(fit);
      }
      const scoped = fits.filter((fit) => fit.event_id !== null).length;
      console.log(`\n${group.title}: ${group.viewers.length} viewers, ${scoped} of them checked in to the event; load ${uptime()}.`);
      const deck = (i: number) => deckQuery(fits[i % fits.length]!, null, DECK_PAGE_SIZE + 1);
      // Sent as the app sends it: named, on connections that plan it for its values every time, or
      // within an event on connections that reuse its generic plan.
      const runRaw = (i: number) => {
        const fit = fits[i % fits.length]!;
        return sendDeckAsTheAppDoes(fit.event_id === null ? decks.town : decks.event, fit);
      };
      let n = 0;
      const next = () => ({ path: '/api/users/matching-profiles/', token: group.viewers[n++ % group.viewers.length]!.token });
      await loop('warm-up', runRaw, { seconds: 2, concurrency: CONNECTIONS });
      await http('warm-up', url, next, { connections: CONNECTIONS, duration: 2 });

      const rawFull = await meter.measure(() => loop(`raw SQL, ${CONNECTIONS} in flight`, runRaw, { seconds: DURATION, concurrency: CONNECTIONS }));
      const httpFull = await meter.measure(() => http(`HTTP, ${CONNECTIONS} connections`, url, next, { connections: CONNECTIONS, duration: DURATION }));
      const half = Math.max(1, Math.round(httpFull.throughput / 2));
      const getter = httpGetter(url, CONNECTIONS);
      const httpHalf = await meter.measure(() =>
        loop(`HTTP at half load (${half} req/s)`, () => getter.fetchOne(next()), { seconds: DURATION, concurrency: CONNECTIONS, rate: half }),
      );
      getter.close();
      const rawHalf = await meter.measure(() => loop(`raw SQL at the same rate (${half} q/s)`, runRaw, { seconds: DURATION, concurrency: CONNECTIONS, rate: half }));
      const rawOne = await meter.measure(() => loop('raw SQL, 1 in flight', runRaw, { seconds: Math.max(3, DURATION / 2), concurrency: 1 }));
      const httpOne = await meter.measure(() => http('HTTP, 1 connection', url, next, { connections: 1, duration: Math.max(3, DURATION / 2) }));
      table(`${group.title}, ${DECK_PAGE_SIZE} cards`, [rawFull, httpFull, httpHalf, rawHalf, rawOne, httpOne]);
      console.log(
        `endpoint/raw throughput: ${(httpFull.throughput / rawFull.throughput).toFixed(2)}; p99 at half load ${httpHalf.p99.toFixed(2)} ms ` +
          `against the raw SQL's ${rawHalf.p99.toFixed(2)} ms at that rate; load after: ${uptime()}`,
      );

      const timings = await statementTimings(raw, deck, Math.min(200, fits.length));
      console.log(
        `Deck statement over ${timings.count} viewers (EXPLAIN ANALYZE, one at a time): execution p50 ${timings.execution.p50} ms, ` +
          `p99 ${timings.execution.p99} ms, max ${timings.execution.max} ms; planning p50 ${timings.planning.p50} ms, p99 ${timings.planning.p99} ms; ` +
          `unseen tier's path: ${[...timings.paths].map(([path, count]) => `${path} × ${count}`).join(', ')}`,
      );
      console.log(
        `PostgreSQL CPU per deck request: ${perOperation(httpFull.cpu?.postgres, httpFull.count)} µs serving the endpoint, ` +
          `${perOperation(rawFull.cpu?.postgres, rawFull.count)} µs serving the raw statement (both at full load); ` +
          `the app's process ${perOperation(httpFull.cpu?.app, httpFull.count)} µs per request.`,
      );
      if (group.name === 'scoped') console.log(`\nEXPLAIN ANALYZE, scoped deck of one sampled viewer:\n\n${await explain(raw, deck(0))}`);
      summary.set(group.name, { rawFull, httpFull, httpHalf, rawHalf, timings });
    }
    // What an HTTP request costs the app and autocannon with no database and no deck: the floor of
    // each deck's budget below.
    const token = groups[0]!.viewers[0]!.token;
    bare = await meter.measure(() =>
      http(`HTTP, ${CONNECTIONS} connections: GET /healthz (no database)`, url, () => ({ path: '/healthz', token }), {
        connections: CONNECTIONS,
        duration: DURATION,
      }),
    );
    table('A bare request, for the budgets', [bare]);
    interleaved = await interleavedHalfLoad(url, groups, summary);
  } finally {
    await raw`delete from auth_tokens where token_hash in ${raw(groups.flatMap((g) => g.viewers.map((v) => hashToken(v.token))))}`;
  }
  const scoped = summary.get('scoped')!;
  const general = summary.get('general')!;
  const cpu = (figures: Figures) => (figures.cpu ? (1000 * figures.cpu.postgres) / figures.count : Number.NaN);
  console.log(
    `\nScoped deck against the general deck, same run: p99 at half load ${scoped.httpHalf.p99.toFixed(2)} against ${general.httpHalf.p99.toFixed(2)} ms; ` +
      `PostgreSQL CPU per request ${cpu(scoped.httpFull).toFixed(0)} against ${cpu(general.httpFull).toFixed(0)} µs; ` +
      `statement execution p50 ${scoped.timings.execution.p50} against ${general.timings.execution.p50} ms, planning p50 ` +
      `${scoped.timings.planning.p50} against ${general.timings.planning.p50} ms.`,
  );
  const rows: TargetRow[] = [];
  for (const [name, run] of [['event deck', scoped], ['general deck', general]] as const) {
    printBudget(name, run, bare!);
    const ratio = run.httpFull.throughput / run.rawFull.throughput;
    rows.push(
      { target: `${name}: endpoint / raw SQL throughput ≥ 0.9`, figure: ratio.toFixed(2), met: ratio >= 0.9 },
      {
        target: `${name}: p99 at half load ≤ raw SQL p99 at that rate + 5 ms`,
        figure: `${run.httpHalf.p99.toFixed(1)} ms against ${run.rawHalf.p99.toFixed(1)} + 5 ms`,
        met: run.httpHalf.p99 <= run.rawHalf.p99 + 5,
      },
    );
  }
  const mixed = interleaved!;
  rows.push({
    target: "event deck's p99 at half load no worse than the general deck's (interleaved, same minutes)",
    figure:
      `${mixed.scoped.p99.toFixed(1)} against ${mixed.general.p99.toFixed(1)} ms ` +
      `(separate runs: ${scoped.httpHalf.p99.toFixed(1)} against ${general.httpHalf.p99.toFixed(1)} ms)`,
    met: mixed.scoped.p99 <= mixed.general.p99,
  });
  targetsTable(rows);
}

/**
 * Both decks in one open loop at the mean of their half-load rates, requests alternating between an
 * event viewer and a viewer at no event, each latency counted to its deck. Run one after the other,
 * the two decks' p99s at half load met different minutes of a shared machine (they moved by a third
 * from run to run, in either direction); here they meet the same ones.
 */
async function interleavedHalfLoad(
  url: string,
  groups: { name: string; viewers: Viewer[] }[],
  summary: Map<string, { httpFull: Figures }>,
) {
  const [scoped, general] = groups as [(typeof groups)[number], (typeof groups)[number]];
  const rate = Math.max(1, Math.round((summary.get('scoped')!.httpFull.throughput + summary.get('general')!.httpFull.throughput) / 4));
  const latencies: [number[], number[]] = [[], []];
  const getter = httpGetter(url, CONNECTIONS);
  const path = '/api/users/matching-profiles/';
  const seconds = DURATION * 2;
  const viewerOf = (i: number) => {
    const { viewers } = i % 2 === 0 ? scoped : general;
    return viewers[Math.floor(i / 2) % viewers.length]!;
  };
  const all = await loop(
    `both decks interleaved at half load (${rate} req/s)`,
    (i) => getter.fetchOne({ path, token: viewerOf(i).token }),
    { seconds, concurrency: CONNECTIONS, rate, onLatency: (i, ms) => latencies[i % 2]!.push(ms) },
  );
  getter.close();
  const result = {
    rate,
    scoped: figuresOf('event deck, interleaved', latencies[0], seconds, 0),
    general: figuresOf('general deck, interleaved', latencies[1], seconds, 0),
  };
  table(`Both decks interleaved at half load, ${rate} req/s for ${seconds} s (errors: ${all.errors}); load after: ${uptime()}`, [
    result.scoped,
    result.general,
  ]);
  return result;
}

interface Arrival {
  at: number;
  count: number;
}

async function doorsOpen(raw: postgres.Sql, url: string, dataDir: string, organizerId: number) {
  // A QR event opening now, made as the organizer's route makes it (no daily limit in a benchmark).
  const database = await openDatabase({ databaseUrl: dbUrl, dataDir, maxConnections: 1 });
  const now = Date.now();
  const event = await createEvent(database.db, organizerId, {
    name: 'Doors open (benchmark)',
    venue: '',
    starts_at: new Date(now - 10 * 60_000).toISOString(),
    ends_at: new Date(now + 2 * HOUR_MS).toISOString(),
    join_mode: 'qr',
  });
  await database.close();
  const organizer = { id: organizerId, token: newToken() };
  const guests = (
    await raw<{ id: number }[]>`
      select p.user_id as id from profiles p
      where p.is_completed and p.user_id <> ${organizerId}
        and not exists (select 1 from attendances a where a.user_id = p.user_id and a.left_at is null)
      order by random() limit ${BURST}`
  ).map((row) => ({ id: row.id, token: newToken() }));
  await raw`insert into auth_tokens ${raw([organizer, ...guests].map((u) => ({ token_hash: hashToken(u.token), user_id: u.id })))}`;
  const sockets: LeanSocket[] = [];
  try {
    // Every guest's phone is connected before the doors open; the organizer's host screen watches.
    const arrivals: Arrival[][] = guests.map(() => []);
    for (let i = 0; i < guests.length; i += 100) {
      const batch = await Promise.all(guests.slice(i, i + 100).map((guest) => LeanSocket.open(url, { token: guest.token })));
      batch.forEach((socket, j) => {
        socket.on('event:count', ({ event_id, count }) => {
          if (event_id === event.id) arrivals[i + j]!.push({ at: performance.now(), count });
        });
        sockets.push(socket);
      });
    }
    const host = await LeanSocket.open(url, { token: organizer.token });
    sockets.push(host);
    const hostArrivals: Arrival[] = [];
    host.on('event:count', ({ count }) => hostArrivals.push({ at: performance.now(), count }));
    await new Promise<void>((resolve) => host.emit('event:watch', { event_id: event.id }, () => resolve()));
    console.log(`\nDoors open: ${guests.length} sockets connected; ${BURST} check-ins to a QR event over ${BURST_SECONDS} s.`);

    // The door's QR, as the host screen shows it: fetched again every window.
    let doorToken = '';
    const fetchQr = async () => {
      const response = await fetch(`${url}/api/events/${event.id}/qr/`, { headers: { authorization: `Token ${organizer.token}` } });
      doorToken = ((await response.json()) as { token: string }).token;
    };
    await fetchQr();
    const qrTimer = setInterval(() => void fetchQr(), 20_000);

    const rate = BURST / BURST_SECONDS;
    let failures = 0;
    const burstStarted = performance.now();
    const checkIns = await loop(
      `check-in (POST /api/events/{code}/check-in/, ${rate.toFixed(1)}/s)`,
      async (i) => {
        const guest = guests[i];
        if (!guest) return;
        const response = await fetch(`${url}/api/events/${event.code}/check-in/`, {
          method: 'POST',
          headers: { authorization: `Token ${guest.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ token: doorToken }),
        });
        await response.arrayBuffer();
        if (response.status !== 200) {
          failures++;
          throw new Error(`HTTP ${response.status}`);
        }
      },
      { seconds: BURST_SECONDS, concurrency: 1, rate },
    );
    clearInterval(qrTimer);
    const burstEnded = performance.now();

    // The last count reaches every socket within a second of the last change (the trailing send).
    const checkedIn = BURST - failures;
    const deadline = performance.now() + 10_000;
    while (performance.now() < deadline && !arrivals.every((list) => list.at(-1)?.count === checkedIn)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [stored] = await raw<{ n: number }[]>`select count(*)::int as n from attendances where event_id = ${event.id} and left_at is null`;

    // Baseline: a plain authenticated GET, same rate, same guests.
    const baseline = await loop(
      'baseline: GET /api/events/current/ at the same rate',
      async (i) => {
        const guest = guests[i % guests.length]!;
        const response = await fetch(`${url}/api/events/current/`, { headers: { authorization: `Token ${guest.token}` } });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
      },
      { seconds: Math.min(BURST_SECONDS, 20), concurrency: 1, rate },
    );
    table('Doors open', [checkIns, baseline]);

    // Per socket: the most messages within any one second, the closest two, the rate over the burst.
    let mostInASecond = 0;
    let closest = Number.POSITIVE_INFINITY;
    let messages = 0;
    let exact = 0;
    for (const list of [...arrivals, hostArrivals]) {
      messages += list.length;
      if (list.at(-1)?.count === checkedIn) exact++;
      for (let i = 0; i < list.length; i++) {
        if (i > 0) closest = Math.min(closest, list[i]!.at - list[i - 1]!.at);
        let j = i;
        while (j + 1 < list.length && list[j + 1]!.at - list[i]!.at < EVENT_COUNT_INTERVAL_MS) j++;
        mostInASecond = Math.max(mostInASecond, j - i + 1);
      }
    }
    const seconds = (burstEnded - burstStarted) / 1000;
    const sockets1 = arrivals.length + 1;
    console.log(
      `event:count: ${messages} messages to ${sockets1} sockets, ${(messages / sockets1 / seconds).toFixed(2)} per socket per second on average ` +
        `(target ≤ 1); at most ${mostInASecond} within any 1,000 ms on one socket (arrival times: delivery jitter included); ` +
        `closest two ${closest.toFixed(0)} ms apart.`,
    );
    console.log(
      `Final count: ${stored?.n} stored, ${checkedIn} check-ins answered 200 (${failures} failed); ` +
        `${exact} of ${sockets1} sockets ended on exactly ${checkedIn}.`,
    );
    console.log(`Check-in p99 ${checkIns.p99.toFixed(2)} ms against ${baseline.p99.toFixed(2)} ms for the plain GET at the same rate.`);
  } finally {
    for (const socket of sockets) socket.close();
    await raw`delete from events where id = ${event.id}`;
    await raw`delete from auth_tokens where user_id in ${raw([organizer, ...guests].map((u) => u.id))} and token_hash in ${raw([organizer, ...guests].map((u) => hashToken(u.token)))}`;
  }
}

async function main() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-events-'));
  await ensureSeeded({
    adminUrl: ADMIN_URL,
    name: DB_NAME,
    fresh: args.fresh,
    dataDir,
    seed: { users: USERS, reactionsPerUser: Number(args['reactions-per-user']), matchRate: 0.2, photos: 24, eventAttendees: ATTENDEES },
  });
  // The raw baseline's connections, set up as the app's: the main pool, and the deck's own pool.
  const { raw, rawDeck, rawEventDeck } = rawClients(dbUrl, POOL);
  try {
    const [demo] = await raw<{ id: number; organizer_id: number }[]>`
      select id, organizer_id from events where name = ${DEMO_EVENT_NAME} order by id desc limit 1`;
    if (!demo) throw new Error(`no demo event in ${DB_NAME}: run with --fresh`);
    // A reused database: the demo event is kept open (a fixture of the benchmark, not of the app).
    await raw`update events set starts_at = now() - interval '1 hour', ends_at = now() + interval '47 hours' where id = ${demo.id}`;
    const [sizes] = await raw`select (select count(*) from users) as users, (select count(*) from reactions) as reactions,
      (select count(*) from attendances where event_id = ${demo.id} and left_at is null) as attendees`;
    console.log(`Data: ${sizes?.users} users, ${sizes?.reactions} reactions, ${sizes?.attendees} checked in to the demo event.`);

    const { url, child } = await startApp({ databaseUrl: namedConnections(dbUrl, APP_CONNECTIONS), dataDir });
    const meter = new CpuMeter(dbUrl, child.pid ?? null);
    try {
      if (args.only !== 'burst') await deckRuns(raw, { town: rawDeck, event: rawEventDeck }, url, demo.id, meter);
      if (args.only !== 'deck') await doorsOpen(raw, url, dataDir, demo.organizer_id);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
      await meter.close();
    }
  } finally {
    await Promise.all([raw.end(), rawDeck.end(), rawEventDeck.end()]);
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
