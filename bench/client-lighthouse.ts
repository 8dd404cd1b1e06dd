/**
 * Lighthouse (mobile preset) against Debian's Chromium: performance and accessibility of / and /login/
 * must be ≥ 95. The real server serves a production build; the baseline, measured in the same run, is
 * a bare React page served the same way, i.e. the best this stack can score on this machine.
 *
 *   npx tsx bench/client-lighthouse.ts
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { build } from 'vite';
import { startServer } from '../tests/helpers/server';

export const LIGHTHOUSE_MIN_SCORE = 95;
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
const root = path.resolve(import.meta.dirname, '..');
const chromePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

async function buildInto(clientRoot: string) {
  const outDir = await mkdtemp(path.join(os.tmpdir(), 'lh-client-'));
  await build({ configFile: path.join(root, 'vite.config.ts'), root: clientRoot, logLevel: 'silent', build: { outDir, emptyOutDir: true } });
  return outDir;
}

async function audit(port: number, url: string) {
  const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility'] });
  if (!result) throw new Error(`no Lighthouse result for ${url}`);
  const { categories, audits } = result.lhr;
  const score = (key: string) => Math.round((categories[key]?.score ?? 0) * 100);
  const ms = (key: string) => Math.round(audits[key]?.numericValue ?? 0);
  const failing = Object.values(audits)
    .filter((item) => item.score !== null && item.score < 1 && item.scoreDisplayMode === 'binary')
    .map((item) => item.id);
  return {
    performance: score('performance'),
    accessibility: score('accessibility'),
    fcp: ms('first-contentful-paint'),
    lcp: ms('largest-contentful-paint'),
    tbt: ms('total-blocking-time'),
    cls: audits['cumulative-layout-shift']?.numericValue ?? 0,
    failing,
    /** Lighthouse's own failure (e.g. NO_FCP when the machine stalls): the run scores 0 and says why. */
    runtimeError: result.lhr.runtimeError?.code ?? null,
  };
}

export async function measureLighthouse() {
  if (!existsSync(chromePath)) throw new Error(`Chromium missing at ${chromePath}`);
  const cleanup: string[] = [];
  const baseRoot = await mkdtemp(path.join(root, 'node_modules', '.lh-baseline-'));
  cleanup.push(baseRoot);
  await writeFile(
    path.join(baseRoot, 'index.html'),
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="description" content="baseline"><title>Baseline</title></head><body><div id="root"></div><script type="module" src="/main.tsx"></script></body></html>',
  );
  await writeFile(path.join(baseRoot, 'main.tsx'), `import { createRoot } from 'react-dom/client';\ncreateRoot(document.getElementById('root')!).render(<main><h1>Hello</h1><p>A bare React page.</p></main>);\n`);
  const baselineDir = await buildInto(baseRoot);
  const clientDir = await buildInto(path.join(root, 'client'));
  cleanup.push(baselineDir, clientDir);

  const baselineServer = await startServer({ config: { clientDir: baselineDir } });
  const server = await startServer({ config: { clientDir } });
  const chrome = await chromeLauncher.launch({ chromePath, chromeFlags: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    // The median of RUNS audits per page (by performance score): one run on a shared 2-core machine is noise.
    const median = async (url: string) => {
      const runs: Array<Awaited<ReturnType<typeof audit>>> = [];
      for (let i = 0; i < RUNS; i += 1) runs.push(await audit(chrome.port, url));
      runs.sort((a, b) => a.performance - b.performance);
      return { ...runs[Math.floor(RUNS / 2)]!, all: runs.map((run) => (run.runtimeError ? `${run.performance} (${run.runtimeError})` : String(run.performance))) };
    };
    const rows: Array<[string, Awaited<ReturnType<typeof median>>]> = [];
    rows.push(['baseline: bare React page', await median(`${baselineServer.url}/`)]);
    rows.push(['/', await median(`${server.url}/`)]);
    rows.push(['/login/', await median(`${server.url}/login/`)]);
    return rows;
  } finally {
    chrome.kill();
    await server.close();
    await baselineServer.close();
    for (const dir of cleanup) await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')} on ${os.cpus().length} cores; median of ${RUNS} runs`);
  const rows = await measureLighthouse();
  let ok = true;
  for (const [name, r] of rows) {
    const pass = name.startsWith('baseline') || (r.performance >= LIGHTHOUSE_MIN_SCORE && r.accessibility >= LIGHTHOUSE_MIN_SCORE);
    ok &&= pass;
    console.log(
      `${name.padEnd(28)} performance ${String(r.performance).padStart(3)}  accessibility ${String(r.accessibility).padStart(3)}  FCP ${r.fcp} ms  LCP ${r.lcp} ms  TBT ${r.tbt} ms  CLS ${r.cls.toFixed(3)}  runs [${r.all.join(', ')}]${name.startsWith('baseline') ? '' : `  ${pass ? 'OK' : 'BELOW 95'}`}${r.failing.length ? `  failing: ${r.failing.join(', ')}` : ''}`,
    );
  }
  if (!ok) process.exitCode = 1;
}
