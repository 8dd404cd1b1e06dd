// `npm start`: build the client and the server where missing or older than their sources, then serve.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { buildServer, serverBundle } from './build-server.mjs';

function newestSource(dirs) {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  for (const dir of dirs) if (existsSync(dir)) walk(dir);
  return newest;
}

const stale = (output, sources) => !existsSync(output) || statSync(output).mtimeMs < newestSource(sources);

if (stale(path.resolve('dist/client/index.html'), ['client', 'shared'])) {
  console.log('Building the client…');
  const { build } = await import('vite');
  await build({ logLevel: 'warn' });
}
if (stale(serverBundle, ['server', 'shared'])) {
  console.log('Building the server…');
  await buildServer();
}

// `npm run serve`'s node flags, set before the server's modules load: stack traces that name the
// TypeScript sources, and V8's allocation-site pretenuring off (bench/README.md, "Allocation-site
// pretenuring": under load it moved each request's garbage into the old generation).
process.setSourceMapsEnabled(true);
setFlagsFromString('--no-allocation-site-pretenuring');
await import(pathToFileURL(serverBundle).href);
