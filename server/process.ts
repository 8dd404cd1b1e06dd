import net from 'node:net';
import { type App, buildApp } from './app';
import { type Config, ConfigError } from './config';
import { jobs as allJobs, type Job, type JobRunner, startJobs } from './jobs';
import { settledWithin } from './lib/turns';

/** How long an orderly shutdown may take before the process exits anyway. */
export const SHUTDOWN_DEADLINE_MS = 10_000;
const IDLE_SWEEP_MS = 100;

/** What an operator is told when the address to listen at cannot be had, by the error's code. */
const listenRefusals: Record<string, (config: Config) => string> = {
  EADDRINUSE: ({ port, host }) => `PORT ${port} is in use on ${host} by another process: stop it, or set another PORT.`,
  EACCES: ({ port }) => `PORT ${port} needs privileges this process does not have: set a PORT above 1023.`,
  EADDRNOTAVAIL: ({ host }) => `HOST ${host} is not an address of this machine.`,
};

/**
 * The process around the app: listen, run the background jobs, and end in order — on SIGTERM/SIGINT
 * (exit 0), or after an error nothing caught (logged with what it was, then exit 1). `main.ts` calls it
 * with the environment's config; a test may call it with its own.
 */
export async function serve(config: Config, options: { jobs?: readonly Job[] } = {}) {
  await refuseAnAddressInUse(config);
  const app = await buildApp(config);
  let jobs: JobRunner | null = null;

  let closing = false;
  async function shutdown(reason: Record<string, unknown>, exitCode: number) {
    if (closing) return;
    closing = true;
    app.log.info(reason, 'shutting down: no new connections, finishing requests in flight');
    const timer = setTimeout(() => {
      app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    timer.unref();
    // server.close() drops the connections idle at that moment only; one that was answering a
    // request stays open under keep-alive once its response is sent, and would hold the exit back.
    const sweeper = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
    sweeper.unref();
    try {
      await stopInOrder(app, jobs);
      clearInterval(sweeper);
      process.exit(exitCode);
    } catch (error) {
      app.log.error({ err: error }, 'error while shutting down');
      process.exit(1);
    }
  }

  process.on('SIGTERM', () => void shutdown({ signal: 'SIGTERM' }, 0));
  process.on('SIGINT', () => void shutdown({ signal: 'SIGINT' }, 0));
  // Something threw where nobody was waiting: the process can no longer be trusted to be in a sane
  // state. Say what it was, then finish the requests in flight and exit non-zero for the supervisor
  // to restart it.
  process.on('unhandledRejection', (reason) => {
    app.log.fatal({ err: reason, origin: 'unhandledRejection' }, 'a promise was rejected and nothing handled it');
    void shutdown({ cause: 'unhandledRejection' }, 1);
  });
  process.on('uncaughtException', (error, origin) => {
    app.log.fatal({ err: error, origin }, 'an exception was thrown and nothing caught it');
    void shutdown({ cause: origin }, 1);
  });

  try {
    // Still the word that counts: the address may have been taken since it was tried.
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // An address this process cannot listen at is the operator's to change: `main.ts` says so in one line.
    const refused = listenRefusals[(error as NodeJS.ErrnoException).code ?? ''];
    if (!refused) {
      app.log.error({ err: error }, 'could not start');
      process.exit(1);
    }
    await app.close();
    throw new ConfigError(refused(config));
  }
  jobs = startJobs(app, options.jobs ?? allJobs);
  return app;
}

/**
 * The orderly end, within `SHUTDOWN_DEADLINE_MS`: the jobs' timers stop and their runs are waited for,
 * then the app closes (no new work, the work in flight drained, the database last). The close's grace
 * (`app.closeGrace`) starts here, and the runs' wait is one of its waits: a run stalled on a statement
 * that the stop cannot end is left to the database's close, which ends that statement.
 */
export async function stopInOrder(app: App, jobs: JobRunner | null) {
  app.closeGrace.begin();
  if (jobs) await settledWithin(jobs.stop(), app.closeGrace.left());
  await app.close();
}

/**
 * Tries the address before the app is built: opening the database is seconds (a new DATA_DIR's
 * initdb and migrations, more on a loaded machine), and an operator whose PORT is taken learns it at
 * once, with nothing written under DATA_DIR. An error of another kind is left to `app.listen` to meet.
 */
async function refuseAnAddressInUse(config: Config) {
  const probe = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ port: config.port, host: config.host }, resolve);
    });
  } catch (error) {
    const refused = listenRefusals[(error as NodeJS.ErrnoException).code ?? ''];
    if (refused) throw new ConfigError(refused(config));
    return;
  }
  await new Promise((resolve) => probe.close(resolve));
}
