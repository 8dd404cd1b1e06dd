// `npm run admin -- <command> <email>` (scripts/admin.ts says which commands): runs the command's
// bundle, dist/admin/admin.js, as the server runs its own. In a checkout the bundle is built first
// when it is missing or older than its sources; the production image holds the bundle alone (no
// sources, no tsx), built by its build stage. Not named admin.mjs: an import of `scripts/admin` (the
// command's tests) would find that before admin.ts.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { adminBundle, buildAdmin } from './build-server.mjs';
import { stale } from './start.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sources = ['server', 'shared', 'scripts/admin.ts'].map((source) => path.join(root, source));
if (stale(adminBundle, sources)) await buildAdmin();
const { admin } = await import(pathToFileURL(adminBundle).href);
process.exitCode = await admin(process.argv.slice(2));
