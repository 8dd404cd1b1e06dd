/**
 * Client bundle budgets: the landing page's JavaScript ≤ 80 KB gzipped, the signed-in app
 * ≤ 180 KB. Builds the real client with a manifest, follows the import graph from the entry, and
 * prints gzipped sizes next to a baseline built in the same run: a bare React "hello" page, the floor
 * any React page pays.
 *
 *   npm run bench:client            (this script, then the Lighthouse and drag scripts)
 *   npx tsx bench/client-bundle.ts  (this one only)
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Manifest } from 'vite';

export const LANDING_BUDGET_KB = 80;
export const APP_BUDGET_KB = 180;

const root = path.resolve(import.meta.dirname, '..');

async function buildWithManifest(clientRoot: string, outDir: string) {
  await build({
    configFile: path.join(root, 'vite.config.ts'),
    root: clientRoot,
    logLevel: 'silent',
    build: { outDir, emptyOutDir: true, manifest: true },
  });
  return JSON.parse(await readFile(path.join(outDir, '.vite', 'manifest.json'), 'utf8')) as Manifest;
}

/**
 * Every JS file loaded by these chunks through static imports (what the browser fetches up front);
 * with `dynamic`, also what they may load later, except the chunks named in `outside`.
 */
function closure(manifest: Manifest, keys: string[], dynamic = false, outside: ReadonlySet<string> = new Set()): Set<string> {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key) || outside.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) return;
    for (const next of chunk.imports ?? []) visit(next);
    // A chunk's lazy imports, not the entry's: AppRoot imports the entry (for the modules they share),
    // and the entry's own lazy pages (register, privacy, the public event page) are not the app's.
    if (dynamic && !chunk.isEntry) for (const next of chunk.dynamicImports ?? []) visit(next);
  };
  keys.forEach(visit);
  return seen;
}

async function gzippedKb(manifest: Manifest, outDir: string, keys: Iterable<string>) {
  let bytes = 0;
  for (const key of keys) {
    const file = manifest[key]?.file;
    if (!file?.endsWith('.js')) continue;
    bytes += gzipSync(await readFile(path.join(outDir, file)), { level: 9 }).length;
  }
  return bytes / 1024;
}

const findKey = (manifest: Manifest, suffix: string) => {
  const key = Object.keys(manifest).find((name) => name.endsWith(suffix));
  if (!key) throw new Error(`no chunk for ${suffix} in the manifest`);
  return key;
};

export async function measureBundles() {
  const work = await mkdtemp(path.join(os.tmpdir(), 'client-bundle-'));
  const cleanup = [work];
  try {
    // Baseline: React + ReactDOM rendering one element, built with the same config.
    // Inside the project so that react resolves from its node_modules.
    const baseRoot = await mkdtemp(path.join(root, 'node_modules', '.client-bench-'));
    cleanup.push(baseRoot);
    await writeFile(path.join(baseRoot, 'index.html'), '<!doctype html><html><head></head><body><div id="root"></div><script type="module" src="/main.tsx"></script></body></html>');
    await writeFile(
      path.join(baseRoot, 'main.tsx'),
      `import { createRoot } from 'react-dom/client';\ncreateRoot(document.getElementById('root')!).render(<h1>hello</h1>);\n`,
    );
    const baseOut = path.join(work, 'baseline-out');
    const baseManifest = await buildWithManifest(baseRoot, baseOut);
    const baseline = await gzippedKb(baseManifest, baseOut, closure(baseManifest, ['index.html']));

    const out = path.join(work, 'client-out');
    const manifest = await buildWithManifest(path.join(root, 'client'), out);
    const landingKeys = closure(manifest, ['index.html']);
    const landing = await gzippedKb(manifest, out, landingKeys);
    // The signed-in app: the entry, the /app chunk with everything it can load, and the toasts. Pages
    // only moderators open (the report queue, the activity page and its chart library) are outside the
    // budget, as an organizer's host-screen chart is: no attendee ever loads them.
    const staffOnly = new Set([findKey(manifest, 'pages/app/Admin.tsx'), findKey(manifest, 'pages/app/moderation/Moderation.tsx')]);
    const appKeys = closure(manifest, ['index.html', findKey(manifest, 'pages/app/AppRoot.tsx'), findKey(manifest, 'components/Toaster.tsx')]);
    // The host screen's chart (uPlot) loads only there, outside the app's budget.
    const outside = new Set([...staffOnly, findKey(manifest, 'lib/event-chart.ts')]);
    // The copy is a chunk per language and a reader loads one: the app counts the Spanish (the
    // default, and the longer), the English chunks are printed on their own line.
    const english = new Set(Object.keys(manifest).filter((key) => /shared\/i18n\/en-[\w-]+\.ts$/.test(key)));
    const spanish = Object.keys(manifest).filter((key) => /shared\/i18n\/es-[\w-]+\.ts$/.test(key));
    for (const key of closure(manifest, [findKey(manifest, 'pages/app/AppRoot.tsx')], true, new Set([...outside, ...english]))) appKeys.add(key);
    const app = await gzippedKb(manifest, out, appKeys);
    const extra = await gzippedKb(manifest, out, [...closure(manifest, [...outside], true, english)].filter((key) => !appKeys.has(key)));
    const englishKb = await gzippedKb(manifest, out, english);
    const spanishKb = await gzippedKb(manifest, out, spanish);
    const everything = await gzippedKb(manifest, out, Object.keys(manifest));
    return { baseline, landing, app, outside: extra, english: englishKb, spanish: spanishKb, everything };
  } finally {
    for (const dir of cleanup) await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await measureBundles();
  const row = (name: string, kb: number, budget?: number) =>
    `${name.padEnd(34)} ${kb.toFixed(1).padStart(7)} KB gz   vs baseline ${(kb / result.baseline).toFixed(2)}×${budget ? `   budget ${budget} KB: ${kb <= budget ? 'OK' : 'OVER'}` : ''}`;
  console.log(row('baseline (bare React page)', result.baseline));
  console.log(row('landing page JS (/)', result.landing, LANDING_BUDGET_KB));
  console.log(row('signed-in app JS (/app/*)', result.app, APP_BUDGET_KB));
  console.log(row('+ host chart, moderators-only', result.outside));
  console.log(row('copy chunks, all of es (lazy part)', result.spanish));
  console.log(row('copy chunks, all of en (lazy part)', result.english));
  console.log(row('all client JS', result.everything));
  if (result.landing > LANDING_BUDGET_KB || result.app > APP_BUDGET_KB) process.exitCode = 1;
}
