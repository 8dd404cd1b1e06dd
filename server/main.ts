import { buildApp } from './app';
import { loadConfig } from './config';

const config = loadConfig();
const app = await buildApp(config);

const IDLE_SWEEP_MS = 100;

let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
  const timer = setTimeout(() => {
    app.log.error('shutdown took too long; exiting');
    process.exit(1);
  }, 10_000);
  timer.unref();
  // server.close() drops the connections idle at that moment only; one that was answering a
  // request stays open under keep-alive once its response is sent, and would hold the exit back.
  const sweeper = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
  sweeper.unref();
  try {
    await app.close();
    clearInterval(sweeper);
    process.exit(0);
  } catch (error) {
    app.log.error({ err: error }, 'error while shutting down');
    process.exit(1);
  }
}

process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

try {
  await app.listen({ port: config.port, host: config.host });
} catch (error) {
  app.log.error({ err: error }, 'could not start');
  process.exit(1);
}
