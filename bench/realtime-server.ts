/**
 * One server process of a benchmark, forked with IPC by bench/server-process.ts: the real app
 * (`buildApp`, as `npm run serve` builds it) or, with BENCH_RELAY=1, the baseline: a bare Socket.IO relay
 * with no auth and no database. The parent asks it for its own CPU time, (after a full GC) heap and
 * event-loop delay since its last question, so the load generator's CPU is not counted.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { Server } from 'socket.io';
import { eventLoopDelay } from '../loadtest/event-loop-delay';
import { buildApp } from '../server/app';
import { loadConfig } from '../server/config';
import { type Job, jobs, startJobs } from '../server/jobs';
import { type GcPause, watchGcPauses } from './gc-pauses';

/** What the parent (bench/server-process.ts) is told when it asks. */
export interface ServerStats {
  /** This process's CPU time since it started, µs. */
  cpuMicros: number;
  heapUsed: number;
  rss: number;
  /** Open Engine.IO connections. */
  sockets: number;
  /** Event-loop delay since the previous question, ms. */
  loopDelay: { p50: number; p99: number; max: number };
  /** Messages the relay has relayed since it started (the app: 0). */
  relayed: number;
  /** Full collections and long pauses since the previous question. */
  gcPauses: GcPause[];
  /** The app's background jobs' runs that did something, since the previous question. */
  jobRuns: JobRun[];
}

/** A run of a background job that did something: the table upkeep's VACUUM and ANALYZE, for one. */
export interface JobRun {
  name: string;
  /** When it began, in ms since the epoch: comparable across the run's processes. */
  at: number;
  ms: number;
  /** Its counts (`{ vacuumed: 1, analyzed: 2 }`). */
  report: Record<string, number>;
}
type Request = { type: 'stats'; id: number; gc: boolean; snapshot?: string } | { type: 'close' };

const port = Number(process.env.PORT ?? 0);
const send = (message: object) => process.send?.(message);

async function startRelay() {
  const server = http.createServer();
  const io = new Server(server, { path: '/socket.io/', serveClient: false });
  let nextId = 0;
  io.on('connection', (socket) => {
    const self = Number(socket.handshake.auth.user);
    const partner = Number(socket.handshake.auth.partner);
    void socket.join(`user:${self}`);
    socket.on('message:send', (payload: { conversation_id: number; content: string; client_id: string }, ack: (reply: object) => void) => {
      nextId += 1;
      const message = { id: nextId, sender: self, content: payload.content, time: new Date().toISOString(), client_id: payload.client_id };
      // Both participants, as the app does.
      io.to(`user:${partner}`).to(`user:${self}`).emit('message:new', { conversation_id: payload.conversation_id, message });
      ack({ ok: true, message });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { io, relayed: () => nextId, close: () => new Promise<void>((resolve) => io.close(() => resolve())) };
}

let jobRuns: JobRun[] = [];
/** The job, its runs that did something noted in `jobRuns`. */
const observed = (job: Job): Job => ({
  ...job,
  async run(app, stopping) {
    const begun = performance.now();
    const report = await job.run(app, stopping);
    if (Object.values(report).some((count) => count > 0)) {
      jobRuns.push({ name: job.name, at: performance.timeOrigin + begun, ms: performance.now() - begun, report });
    }
    return report;
  },
});

async function startApp() {
  const app = await buildApp({ ...loadConfig(), clientDir: null, host: '127.0.0.1', port }, { logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  // Its background jobs too, as `npm run serve` runs them (server/process.ts): planner statistics among them.
  const running = startJobs(app, jobs.map(observed));
  return {
    io: app.io as Server,
    relayed: () => 0,
    close: async () => {
      await running.stop();
      await app.close();
    },
  };
}

const server = process.env.BENCH_RELAY === '1' ? await startRelay() : await startApp();
const loopDelay = eventLoopDelay(10);
const gcPauses = watchGcPauses();
send({ type: 'ready' });

/**
 * BENCH_PROFILE_DIR: a V8 CPU profile of what was measured, from the first stats() (the first phase's
 * start, after start-up and the clients' connections) to the close. `--cpu-prof` would count start-up too.
 * BENCH_PROMOTION_DIR: over the same span, a sampling heap profile of what survived the young
 * generation's collections, that is what was promoted to the old generation, whose growth sets when
 * the next full GC comes (`.heapprofile`, for Chrome's DevTools; its own variable, since sampling
 * allocations slows the server the CPU profile measures).
 */
const profileDir = process.env.BENCH_PROFILE_DIR;
const promotionDir = process.env.BENCH_PROMOTION_DIR;
const role = process.env.BENCH_RELAY === '1' ? 'relay' : 'app';
let profiler: Session | null = null;
async function startProfile() {
  if ((!profileDir && !promotionDir) || profiler) return;
  profiler = new Session();
  profiler.connect();
  if (profileDir) {
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  if (promotionDir) {
    await profiler.post('HeapProfiler.enable');
    await profiler.post('HeapProfiler.startSampling', { includeObjectsCollectedByMinorGC: false, includeObjectsCollectedByMajorGC: true });
  }
}
async function stopProfile() {
  if (!profiler) return;
  const write = (dir: string, extension: string, profile: object) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${role}-${process.pid}.${extension}`), JSON.stringify(profile));
  };
  if (profileDir) write(profileDir, 'cpuprofile', (await profiler.post('Profiler.stop')).profile);
  if (promotionDir) write(promotionDir, 'heapprofile', (await profiler.post('HeapProfiler.stopSampling')).profile);
}

process.on('message', async (request: Request) => {
  if (request.type === 'close') {
    await stopProfile();
    await server.close();
    process.exit(0);
  }
  if (request.type === 'stats') {
    await startProfile();
    // CPU first: the full GC a heap reading needs is not the workload's.
    const cpu = process.cpuUsage();
    const gc = (globalThis as { gc?: () => void }).gc;
    if (request.gc) {
      gc?.();
      gc?.();
    }
    const memory = process.memoryUsage();
    if (request.snapshot) writeHeapSnapshot(request.snapshot);
    const delay = { p50: loopDelay.percentile(50), p99: loopDelay.percentile(99), max: loopDelay.max() };
    loopDelay.reset();
    const stats: ServerStats & { type: 'stats'; id: number } = {
      type: 'stats',
      id: request.id,
      cpuMicros: cpu.user + cpu.system,
      heapUsed: memory.heapUsed,
      rss: memory.rss,
      sockets: server.io.engine.clientsCount,
      loopDelay: delay,
      relayed: server.relayed(),
      gcPauses: gcPauses.take(),
      jobRuns,
    };
    jobRuns = [];
    send(stats);
  }
});
