// `npm start`: build the client when it is missing or older than its sources, then serve.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const builtIndex = path.resolve('dist/client/index.html');

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

const stale = !existsSync(builtIndex) || statSync(builtIndex).mtimeMs < newestSource(['client', 'shared']);
if (stale) {
  console.log('Building the client…');
  const { build } = await import('vite');
  await build({ logLevel: 'warn' });
}

const { register } = await import('tsx/esm/api');
register();
await import('../server/main.ts');
