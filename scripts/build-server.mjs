// The server as production runs it: server/ and shared/ bundled into one ES module,
// dist/server/main.js, with every npm package left to node_modules (native addons, PGlite's
// WebAssembly and the packages' own files stay where they are). No TypeScript loader at run time:
// less memory, no loader thread, a faster start. The admin command (`npm run admin`) is bundled the
// same way, into dist/admin/admin.js: the production image has no sources and no tsx to run it with.
//
//   npm run build:server      (npm run build runs it after the client; npm start when stale)
//   node scripts/build-server.mjs <dir>     the same bundles into <dir> instead of dist/
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
export const serverBundle = path.join(dist, 'server/main.js');
export const adminBundle = path.join(dist, 'admin/admin.js');

/**
 * Writes the bundle, its source map and esbuild's metafile (meta.json: which packages it imports,
 * which the production image must install) beside `outfile`. The benchmarks bundle their server
 * (`entryPoint`, bench/realtime-server.ts) the same way, so that they measure the code production runs.
 */
export async function buildServer(outfile = serverBundle, entryPoint = 'server/main.ts') {
  // Loaded only to build: `npm start` on a fresh bundle runs without dev dependencies installed.
  const { build } = await import('esbuild');
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: [entryPoint],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
  });
  await writeFile(path.join(path.dirname(outfile), 'meta.json'), JSON.stringify(metafile));
}

/** The admin command's bundle (its own folder: its meta.json beside it). */
export const buildAdmin = (outfile = adminBundle) => buildServer(outfile, 'scripts/admin.ts');

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const into = path.resolve(process.argv[2] ?? dist);
  await buildServer(path.join(into, path.relative(dist, serverBundle)));
  await buildAdmin(path.join(into, path.relative(dist, adminBundle)));
}
