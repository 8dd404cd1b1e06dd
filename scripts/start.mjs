// How the server process starts, in one place: the build-freshness check and the runtime flags.
//
//   npm start          node scripts/start.mjs              build the client and the server where missing
//                                                          or older than their sources, then serve
//   npm run serve      node scripts/start.mjs --no-build   serve the bundle as it is (production, Docker)
//   npm run cluster    builds the client the same way (buildClientIfStale); its instances run the sources
//
// Scripts that start the server as a child of their own (scripts/cluster.ts, bench/) import
// SERVER_NODE_FLAGS from here and pass them on node's command line.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { buildServer, serverBundle } from './build-server.mjs';

/**
 * The server's node flags: stack traces that name the TypeScript sources; V8's allocation-site
 * pretenuring off (bench/README.md, "Allocation-site pretenuring": under load it moved each request's
 * garbage into the old generation); and the old generation let grow to twice what survived the last
 * full GC before the next one. Left to itself, V8 grows it by a tenth when a full GC is quick beside
 * the rate the program promotes: at a party that was a full GC every ~4 s, each a spike in every
 * latency (bench/README.md, the party's notes, session 23). V8 reads the factor at every full GC, so
 * `applyServerFlags` sets it as well as node's command line does.
 */
export const SERVER_NODE_FLAGS = ['--enable-source-maps', '--no-allocation-site-pretenuring', '--heap-growing-percent=100'];

/** This process, set as `node ${SERVER_NODE_FLAGS}` would have set it: before the server's modules load. */
function applyServerFlags() {
  for (const flag of SERVER_NODE_FLAGS) {
    if (flag === '--enable-source-maps') process.setSourceMapsEnabled(true);
    else setFlagsFromString(flag);
  }
}

/** The newest change among these folders and files; 0 where none of them is (the production image). */
function newestSource(sources) {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  for (const source of sources) {
    if (!existsSync(source)) continue;
    if (statSync(source).isDirectory()) walk(source);
    else newest = Math.max(newest, statSync(source).mtimeMs);
  }
  return newest;
}

/** True when `output` is missing or older than any of its sources (folders or files). */
export const stale = (output, sources) => !existsSync(output) || statSync(output).mtimeMs < newestSource(sources);

/** The client, when its build is missing or older than its sources (`npm start`, `npm run cluster`). */
export async function buildClientIfStale() {
  if (stale(path.resolve('dist/client/index.html'), ['client', 'shared'])) {
    console.log('Building the client…');
    const { build } = await import('vite');
    // The client is a production build whatever NODE_ENV says (Vite would build React's development
    // one for any other); the server must then see the environment it was started with (NODE_ENV
    // decides, for one, whether the test checkout is on).
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    await build({ logLevel: 'warn' });
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}

async function buildWhatIsStale() {
  await buildClientIfStale();
  if (stale(serverBundle, ['server', 'shared'])) {
    console.log('Building the server…');
    await buildServer();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--no-build')) await buildWhatIsStale();
  applyServerFlags();
  await import(pathToFileURL(serverBundle).href);
}
