import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PartyResult, runParty } from '../../loadtest/party';
import { backends, startServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/socket';
import { tcpProxy } from '../helpers/tcp-proxy';

// The heavier backend the machine has (PostgreSQL when present): one 30-second party is enough.
const backend = backends.at(-1)!;

/** A server set up as the README tells an operator to set one for a party from one address. */
function partyServer() {
  return startServer({ backend, config: { limitMultiplier: 1000 } });
}

// The parties run side by side, each with its own accounts and event: most of their time is waiting
// through the party. A test that tells every socket of its server something (`sync`, a disconnect)
// has a server of its own, so that no other party hears it.
describe.concurrent(`npm run loadtest's party against the real app (${backend})`, () => {
  let server: TestServer;
  let dir: string;
  /**
   * The first party's heap per attendee is measured from its setup to its check-ins: another party
   * ending meanwhile (its sockets and state let go) would take its share away. The others start once
   * it is measured (the first party has begun, or failed).
   */
  let measured: () => void;
  const heapMeasured = new Promise<void>((resolve) => (measured = resolve));

  const first = 'runs 50 attendees for 30 s: matches and messages happen, nothing is lost or duplicated';

  beforeAll(async ({}, suite) => {
    // The first party left out (`-t` picking others): nothing to wait for.
    if (suite.tasks.find((task) => task.name === first)?.mode !== 'run') measured();
    // What the README tells an operator to set for a party from one address.
    server = await partyServer();
    dir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-loadtest-'));
  });

  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(first, async () => {
    const progress: number[] = [];
    const stateFile = path.join(dir, 'state.json');
    const result = await runParty({
      url: server.url,
      attendees: 50,
      minutes: 0.5,
      stateFile,
      onProgress: (p) => {
        progress.push(p.swipes);
        if (p.phase === 'party') measured();
      },
    }).finally(() => measured());

    expect(result.counts.check_ins).toBe(50);
    expect(result.event.join_mode).toBe('qr');
    expect(result.counts.swipes).toBeGreaterThan(100);
    expect(result.counts.matches).toBeGreaterThan(0);
    // Every match the tool saw completed is an overlay it expected on the other phone.
    expect(result.counts.match_overlays.expected).toBe(result.counts.matches);
    expect(result.counts.match_overlays.delivered + result.counts.match_overlays.recovered).toBe(result.counts.matches);
    expect(result.latency_ms.match_overlay.count).toBe(result.counts.match_overlays.delivered);

    const m = result.counts.messages;
    expect(m.sent).toBeGreaterThan(0);
    expect(m.acknowledged).toBe(m.sent);
    expect(m.delivered + m.recovered).toBe(m.sent);
    expect([m.lost, m.duplicated, m.unanswered, m.refused]).toEqual([0, 0, 0, 0]);
    expect(result.counts.match_overlays.lost).toBe(0);
    expect(result.ok).toBe(true);
    // Some phones went away and came back, and the figures say so.
    expect(result.counts.reconnects).toBeGreaterThan(0);
    expect(result.latency_ms.reconnect.count).toBe(result.counts.reconnects);
    // Every connect asked who is online, as the app does, and had its answer.
    expect(result.latency_ms.presence_list.count).toBe(50 + result.counts.reconnects);
    // Each came back as the app does: where it is checked in and the likes left read again, beside
    // the lists and the messages missed.
    for (const route of ['GET /api/events/current/', 'GET /api/matching/allowance/']) {
      expect(result.latency_ms.rest[route]).toMatchObject({ count: result.counts.reconnects, statuses: { '200': result.counts.reconnects } });
    }

    // The shape --json writes, with a row per REST route the phones used.
    expect(Object.keys(result.latency_ms.rest)).toEqual(
      expect.arrayContaining(['POST /api/auth/register/', 'PUT /api/users/me/profile/', 'POST /api/events/:code/pass/', 'POST /api/events/:code/check-in/', 'GET /api/users/matching-profiles/', 'POST /api/matching/']),
    );
    expect(result.latency_ms.rest['POST /api/matching/']).toMatchObject({ count: result.counts.swipes, statuses: { '200': result.counts.swipes } });
    for (const summary of [result.latency_ms.match_overlay, result.latency_ms.message_delivery]) {
      expect(summary.p50).toBeGreaterThan(0);
      expect(summary.p50!).toBeLessThanOrEqual(summary.p99!);
      expect(summary.p99!).toBeLessThanOrEqual(summary.max!);
    }
    expect(result.tool.operations).toBeGreaterThan(0);
    expect(result.tool.heap_kb_per_attendee).toBeGreaterThan(0);
    expect(result.tool.event_loop_delay_ms.p99).toBeGreaterThanOrEqual(0);
    expect(result.tool.event_loop_delay_ms.max).toBeGreaterThanOrEqual(result.tool.event_loop_delay_ms.p99);
    expect(result.tool.rest_pool_wait_ms.max).toBeGreaterThanOrEqual(result.tool.rest_pool_wait_ms.p99);
    // The live display ran while the party did.
    expect(progress.length).toBeGreaterThanOrEqual(25);

    // The accounts are kept for the next run, which reuses them instead of registering again.
    const state = JSON.parse(await readFile(stateFile, 'utf8')) as { attendees: Array<{ id: number }> };
    expect(state.attendees).toHaveLength(50);
    const again = await runParty({ url: server.url, attendees: 4, minutes: 0.05, stateFile, event: result.event.code, leaveShare: 0 });
    expect(again.latency_ms.rest['POST /api/auth/register/']).toBeUndefined();
    expect(again.counts.check_ins).toBe(4);
    expect(again.ok).toBe(true);
  }, 120_000);

  it('--arrive-over: attendees connect, check in and start during the party, and nothing is lost', async () => {
    await heapMeasured;
    const seen: Array<{ phase: string; checkIns: number }> = [];
    const result = await runParty({
      url: server.url,
      attendees: 24,
      minutes: 0.4,
      arriveOverSeconds: 10,
      stateFile: path.join(dir, 'arrivals.json'),
      onProgress: (p) => seen.push({ phase: p.phase, checkIns: p.checkIns }),
    });

    // No setup phase opened the sockets or checked anyone in: the party did, a few at a time.
    expect(seen.some((p) => p.phase === 'connect' || p.phase === 'check-in')).toBe(false);
    const during = seen.filter((p) => p.phase === 'party');
    expect(during[0]!.checkIns).toBeLessThan(24);
    expect(new Set(during.map((p) => p.checkIns)).size).toBeGreaterThanOrEqual(3);
    expect(during.every((p, i) => i === 0 || p.checkIns >= during[i - 1]!.checkIns)).toBe(true);
    expect(result.counts.check_ins).toBe(24);
    expect(result.latency_ms.rest['POST /api/events/:code/check-in/']!.statuses).toEqual({ '200': 24 });
    // Each arrival reads the conversation lists, as the app does when it opens.
    expect(result.latency_ms.rest['GET /api/conversations/empty/']!.count).toBeGreaterThanOrEqual(24);

    expect(result.counts.swipes).toBeGreaterThan(24);
    const m = result.counts.messages;
    expect([m.lost, m.duplicated, m.unanswered, m.refused]).toEqual([0, 0, 0, 0]);
    expect(result.counts.match_overlays.lost).toBe(0);
    expect(result.ok).toBe(true);
    // Measured only with everyone connected at once; an arriving crowd has no such moment to measure.
    expect(result.tool.heap_kb_per_attendee).toBeNull();
  }, 90_000);

  it('--arrive-over, ended early: the drain does not wait for those who had not arrived yet', async () => {
    await heapMeasured;
    const abort = new AbortController();
    let endedAt = 0;
    const result = await runParty({
      url: server.url,
      attendees: 12,
      minutes: 1,
      arriveOverSeconds: 20,
      leaveShare: 0,
      signal: abort.signal,
      stateFile: path.join(dir, 'early-arrivals.json'),
      onProgress: (p) => {
        if (p.phase !== 'party' || p.checkIns === 0 || endedAt) return;
        endedAt = performance.now();
        abort.abort();
      },
    });
    // Nothing sent yet to wait for: what stood between the end and the results was the drain's quiet 10 s.
    expect(performance.now() - endedAt).toBeLessThan(5000);
    expect(result.counts.check_ins).toBeLessThan(12);
    expect(result.counts.offline_at_end).toBe(0);
    expect(result.ok).toBe(true);
  }, 60_000);

  it("catches up after the servers' sync as the app does: within the spread, with who is online", async () => {
    // Every socket of the server hears the sync: a server of its own.
    const server = await partyServer();
    await heapMeasured;
    let synced = false;
    const result = await runParty({
      url: server.url,
      attendees: 6,
      minutes: 0.2,
      leaveShare: 0,
      stateFile: path.join(dir, 'sync.json'),
      onProgress: (p) => {
        if (p.phase !== 'party' || synced) return;
        synced = true;
        // What an instance tells its sockets when its Redis comes back.
        server.app.io.emit('sync');
      },
    }).finally(() => server.close());
    expect(synced).toBe(true);
    expect(result.ok).toBe(true);
    // Each phone asked who is online at its connect and again after the sync, and read where it is
    // and its likes left once, after the sync.
    expect(result.latency_ms.presence_list.count).toBe(12);
    for (const route of ['GET /api/events/current/', 'GET /api/matching/allowance/']) {
      expect(result.latency_ms.rest[route]).toMatchObject({ count: 6, statuses: { '200': 6 } });
    }
  }, 60_000);

  it("connects again after the server's own disconnect, as the app does, and counts it", async () => {
    // Every socket of the server is disconnected: a server of its own.
    const server = await partyServer();
    await heapMeasured;
    let disconnected = false;
    const result = await runParty({
      url: server.url,
      attendees: 6,
      minutes: 0.2,
      leaveShare: 0,
      stateFile: path.join(dir, 'server-disconnect.json'),
      onProgress: (p) => {
        if (p.phase !== 'party' || disconnected) return;
        disconnected = true;
        // What a server that disconnects its sockets does to every phone (socket.io-client alone stays offline).
        server.app.io.disconnectSockets();
      },
    }).finally(() => server.close());
    expect(disconnected).toBe(true);
    expect(result.counts.offline_at_end).toBe(0);
    expect(result.ok).toBe(true);
    expect(result.counts.server_disconnects).toBe(6);
    expect(result.counts.drops).toBe(6);
    expect(result.counts.reconnects).toBe(6);
    // Each reconnection's handshake is timed, and each caught up as after any reconnect.
    expect(result.latency_ms.reconnect.count).toBe(6);
    expect(result.latency_ms.presence_list.count).toBe(12);
    expect(result.latency_ms.rest['GET /api/events/current/']).toMatchObject({ count: 6, statuses: { '200': 6 } });
  }, 60_000);

  it('a presence:list left unanswered is given up after ~10 s as the app does: an error, the connection dropped, asked again', async () => {
    // Every socket of the server is watched: a server of its own.
    const server = await partyServer();
    await heapMeasured;
    let unanswered: number | null = null;
    const asks = new Map<number, number>();
    server.app.io.on('connection', (socket) => {
      // The app hears every event through one catch-all listener (called before any socket.use): it is
      // put behind the test's, which keeps what is not to be answered from it.
      const [dispatch] = socket.listenersAny();
      socket.offAny(dispatch);
      socket.onAny((event: string, ...args: unknown[]) => {
        if (event === 'presence:list') {
          const id = socket.data.user.id;
          unanswered ??= id;
          asks.set(id, (asks.get(id) ?? 0) + 1);
          // The first phone's first ask: the server keeps its socket (its pings go on), and never answers.
          if (id === unanswered && asks.get(id) === 1) return;
        }
        dispatch!.apply(socket, [event, ...args]);
      });
    });
    const result = await runParty({ url: server.url, attendees: 4, minutes: 0.3, leaveShare: 0, stateFile: path.join(dir, 'presence-unanswered.json') }).finally(() =>
      server.close(),
    );
    expect(result.counts.errors['presence:list no answer within 10 s']).toBe(1);
    // Dropped as dead, connected again, and asked again: answered this time.
    expect(result.counts.drops).toBeGreaterThanOrEqual(1);
    expect(result.counts.reconnects).toBe(result.counts.drops);
    expect(asks.get(unanswered!)).toBe(2);
    expect(result.latency_ms.presence_list.count).toBe(4 + result.counts.reconnects - 1);
    expect(result.counts.offline_at_end).toBe(0);
    expect(result.ok).toBe(true);
  }, 60_000);

  it('the drain tries a failed return again, as the party does, until the phone is back', async () => {
    await heapMeasured;
    // The server behind a link of the test's own: cut as the party ends, with a phone away.
    const proxy = await tcpProxy(server.url);
    const abort = new AbortController();
    let cut = false;
    let restored = false;
    try {
      const result = await runParty({
        url: proxy.url,
        attendees: 6,
        minutes: 0.5,
        leaveShare: 1,
        signal: abort.signal,
        stateFile: path.join(dir, 'drain-return.json'),
        onProgress: (p) => {
          // One away (it left: nobody has dropped yet): the network goes, and the party ends with it.
          if (p.phase === 'party' && !cut && p.connected < p.attendees) {
            cut = true;
            proxy.cut();
            abort.abort();
          }
          // Its first return, as the drain begins, fails; the network is back a second later.
          if (p.phase === 'drain' && cut && !restored) {
            restored = true;
            setTimeout(() => proxy.restore(), 1000);
          }
        },
      });
      expect(restored).toBe(true);
      expect(result.counts.errors['socket reconnect failed']).toBeGreaterThanOrEqual(1);
      expect(result.counts.offline_at_end).toBe(0);
      expect(result.ok).toBe(true);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('a return still connecting as the party ends is not begun again by the drain: one socket per phone', async () => {
    // Handshakes held at the server: a server of its own.
    const server = await partyServer();
    await heapMeasured;
    const abort = new AbortController();
    const connects = new Map<number, number>();
    const held: Array<() => void> = [];
    let partying = false;
    let releasing = false;
    let released = false;
    server.app.io.use((socket, next) => {
      const id = socket.data.user.id;
      connects.set(id, (connects.get(id) ?? 0) + 1);
      if (!partying || released) return next();
      // A phone coming back (nobody drops): its handshake held, and the party ended while it is under way.
      held.push(next);
      abort.abort();
    });
    let result: PartyResult;
    try {
      result = await runParty({
        url: server.url,
        attendees: 4,
        minutes: 0.5,
        leaveShare: 1,
        signal: abort.signal,
        stateFile: path.join(dir, 'return-under-way.json'),
        onProgress: (p) => {
          if (p.phase === 'party') partying = true;
          // A second into the drain (it tries the phones still away at once), the handshakes go through.
          if (p.phase === 'drain' && !releasing) {
            releasing = true;
            setTimeout(() => {
              released = true;
              for (const next of held.splice(0)) next();
            }, 1000);
          }
        },
      });
      // Every phone's socket is closed with the run: none was left open.
      await waitUntil(() => server.app.io.sockets.sockets.size === 0, 5000, 'every socket closed');
    } finally {
      await server.close();
    }
    expect(held).toHaveLength(0);
    expect(result.ok).toBe(true);
    expect(result.counts.offline_at_end).toBe(0);
    // Each phone connected once, and once more for each return: the one under way was not begun twice.
    const returns = [...connects.values()].filter((n) => n === 2).length;
    expect([...connects.values()].every((n) => n === 1 || n === 2)).toBe(true);
    expect(returns).toBeGreaterThanOrEqual(1);
    expect(result.counts.reconnects).toBe(returns);
    expect(result.latency_ms.presence_list.count).toBe(4 + returns);
  }, 60_000);

  it('the drain tries a failed arrival again, as the party does, until the phone is in', async () => {
    await heapMeasured;
    const proxy = await tcpProxy(server.url);
    const abort = new AbortController();
    let cutAt = 0;
    let restored = false;
    try {
      const result = await runParty({
        url: proxy.url,
        attendees: 6,
        minutes: 0.2,
        arriveOverSeconds: 2,
        leaveShare: 0,
        signal: abort.signal,
        stateFile: path.join(dir, 'drain-arrival.json'),
        onProgress: (p) => {
          // The network goes as the party begins: every arrival fails, and the party ends once all have tried.
          if (p.phase === 'party' && !cutAt) {
            cutAt = performance.now();
            proxy.cut();
          } else if (p.phase === 'party' && performance.now() - cutAt > 2500) {
            abort.abort();
          }
          // The network is back a second into the drain.
          if (p.phase === 'drain' && !restored) {
            restored = true;
            setTimeout(() => proxy.restore(), 1000);
          }
        },
      });
      expect(restored).toBe(true);
      expect(Object.keys(result.counts.errors).some((what) => what.startsWith('arrival '))).toBe(true);
      expect(result.counts.check_ins).toBe(6);
      expect(result.counts.offline_at_end).toBe(0);
      expect(result.ok).toBe(true);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it("an arrival whose door's QR could not be read tries again, and reads it afresh", async () => {
    await heapMeasured;
    // The organizer's screen (setup, the QR) behind a link of the test's own; the phones reach the server.
    const proxy = await tcpProxy(server.url);
    let cut = false;
    try {
      const result = await runParty({
        url: proxy.url,
        instances: [server.url],
        attendees: 4,
        minutes: 0.2,
        arriveOverSeconds: 2,
        leaveShare: 0,
        stateFile: path.join(dir, 'qr-again.json'),
        onProgress: (p) => {
          // The QR cannot be read as the first guests arrive; a few seconds later it can.
          if (p.phase !== 'party' || cut) return;
          cut = true;
          proxy.cut();
          setTimeout(() => proxy.restore(), 3000);
        },
      });
      expect(cut).toBe(true);
      expect(Object.keys(result.counts.errors).some((what) => what.startsWith('arrival '))).toBe(true);
      expect(result.counts.check_ins).toBe(4);
      expect(result.ok).toBe(true);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('--arrive-over longer than half the party is refused before anything is created', async () => {
    await heapMeasured;
    const stateFile = path.join(dir, 'too-late.json');
    await expect(runParty({ url: server.url, attendees: 4, minutes: 1, arriveOverSeconds: 31, stateFile })).rejects.toThrow(
      '--arrive-over 31 s: at least 0 and at most half the party (30 s)',
    );
    await expect(readFile(stateFile, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('asks for the next cards after every swipe that leaves five or fewer, as the app does', async () => {
    await heapMeasured;
    // A room of seven: every deck holds the six others (and the skipped come back once they are all
    // seen), so after each swipe five or fewer are left.
    const result = await runParty({ url: server.url, attendees: 7, minutes: 0.25, stateFile: path.join(dir, 'seven.json'), leaveShare: 0 });
    expect(result.ok).toBe(true);
    const swipes = result.counts.swipes;
    expect(swipes).toBeGreaterThan(7);
    expect(result.latency_ms.rest['POST /api/matching/']!.statuses).toEqual({ '200': swipes });
    // Each phone's first deck, then one after every swipe; asked for only once empty, as before, it
    // would have been seven and a refresh or two.
    const decks = result.latency_ms.rest['GET /api/users/matching-profiles/']!;
    expect(decks.statuses).toEqual({ '200': decks.count });
    expect(decks.count).toBeGreaterThanOrEqual(swipes);
  }, 60_000);
});
