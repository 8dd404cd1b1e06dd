import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/** What a run did, for the log: counts by what they count (`{ swept: 3 }`). */
export type JobReport = Record<string, number>;

/**
 * Work that is not a request. Adding one is a file in `server/jobs/` with this shape, and a line in
 * `jobs` (index.ts); docs/operations.md lists them.
 */
export interface Job {
  /** Names the job in the log, and its lock. */
  name: string;
  /** How often it runs. */
  everyMs: number;
  /** The first run after start-up (default: `everyMs`); short, so that an instance restarted often still runs it. */
  firstAfterMs?: number;
  /**
   * `cluster`: work on shared state (the database, the media store), done by one instance at a time
   * under a PostgreSQL advisory lock; an instance that finds the lock held skips that turn.
   * `instance`: work on this instance's own state (its sockets), done by every instance.
   */
  scope: 'cluster' | 'instance';
  /** Whether the process runs it at all with this config (default: always). */
  runsWith?: (config: FastifyInstance['config']) => boolean;
  /** `stopping` is aborted when the process stops its jobs: a long run may end early, its work left for next time. */
  run(app: FastifyInstance, stopping: AbortSignal): Promise<JobReport>;
}

export type JobOutcome =
  | { status: 'done'; report: JobReport; ms: number }
  | { status: 'skipped' }
  | { status: 'failed'; error: unknown };

/** The job's advisory lock: a stable 64-bit key derived from its name. */
export function lockKey(name: string): bigint {
  return createHash('sha256').update(`eventmatch:job:${name}`).digest().readBigInt64BE(0);
}

/**
 * One run of a job, as the process's timers start it (tests start it the same way): under its lock
 * when it works on shared state, logged with what it did. Never throws: a failure is logged and reported.
 */
export async function runJob(app: FastifyInstance, job: Job, stopping = new AbortController().signal): Promise<JobOutcome> {
  const log = app.log.child({ job: job.name });
  const started = performance.now();
  try {
    const outcome =
      job.scope === 'cluster'
        ? await app.database.withLock(lockKey(job.name), () => job.run(app, stopping))
        : { ran: true as const, result: await job.run(app, stopping) };
    if (!outcome.ran) {
      log.debug('job skipped: another instance is running it');
      return { status: 'skipped' };
    }
    const ms = Math.round(performance.now() - started);
    const report = outcome.result;
    // A run that changed nothing is routine; one that did something is worth a line at info.
    const level = Object.values(report).some((count) => count > 0) ? 'info' : 'debug';
    log[level]({ ...report, ms }, 'job done');
    return { status: 'done', report, ms };
  } catch (error) {
    log.error({ err: error }, 'job failed');
    return { status: 'failed', error };
  }
}

export interface JobRunner {
  /** Stops the timers and waits for the runs in flight. */
  stop(): Promise<void>;
}

/** Runs each job on its timer. A job never overlaps itself within the instance: a turn due while it runs is skipped. */
export function startJobs(app: FastifyInstance, jobs: readonly Job[]): JobRunner {
  const timers: NodeJS.Timeout[] = [];
  const running = new Map<string, Promise<unknown>>();
  const stopping = new AbortController();
  // A job for one configuration only (the local test checkout's) is not started under another.
  const wanted = jobs.filter((job) => job.runsWith?.(app.config) ?? true);

  for (const job of wanted) {
    const tick = () => {
      if (stopping.signal.aborted || running.has(job.name)) return;
      const run = runJob(app, job, stopping.signal).finally(() => running.delete(job.name));
      running.set(job.name, run);
    };
    const first = setTimeout(() => {
      tick();
      timers.push(setInterval(tick, job.everyMs).unref());
    }, job.firstAfterMs ?? job.everyMs);
    timers.push(first.unref());
  }
  app.log.info({ jobs: wanted.map(({ name, everyMs, scope }) => ({ name, everyMs, scope })) }, 'background jobs started');

  return {
    async stop() {
      stopping.abort();
      for (const timer of timers) clearTimeout(timer);
      await Promise.allSettled([...running.values()]);
    },
  };
}
