/**
 * Where a Node process's CPU went, from a Linux `perf` recording: `npx tsx bench/perf-summary.ts
 * <perf.data> [--by module|function|top] [--under <regex>] [--rows N]`.
 *
 * Record the app with its JIT frames named: node's `--perf-basic-prof` (PARTY_NODE_FLAGS,
 * BENCH_NODE_FLAGS), then `perf record -e cpu-clock -F 500 -g -p <pid>`. Unlike V8's own CPU profile,
 * perf samples the thread on a CPU whatever it runs (the kernel's TCP stack, libuv, the HTTP parser,
 * V8's builtins), so the samples add up to the process's CPU time, and a share of them is a share of
 * its CPU. V8's profiler counts native work outside JavaScript as idle, and under `taskset` its
 * sampling thread waits for the very core it samples.
 *
 * Each sample is charged to the innermost JavaScript frame on its stack (what called the builtin, the
 * system call or the C++ it was in): `--by module` groups those frames by package or file, `--by
 * function` names them, `--by top` names the innermost frame of any kind. `--under` keeps only the
 * samples with a frame matching the regex on their stack, to see what one function's time is made of.
 */
import { spawnSync } from 'node:child_process';

// Piped into `head`: stop quietly once the reader has gone.
process.stdout.on('error', (error: NodeJS.ErrnoException) => process.exit(error.code === 'EPIPE' ? 0 : 1));

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args.splice(at, 2)[1];
};
const by = option('--by') ?? 'module';
const under = option('--under');
const rows = Number(option('--rows') ?? 30);
const [file] = args;
if (!file || !['module', 'function', 'top'].includes(by)) {
  console.error('usage: npx tsx bench/perf-summary.ts <perf.data> [--by module|function|top] [--under <regex>] [--rows N]');
  process.exit(2);
}

const script = spawnSync('perf', ['script', '-i', file, '-F', 'ip,sym'], { encoding: 'utf8', maxBuffer: 1 << 30 });
if (script.status !== 0) {
  console.error(script.stderr || `perf script exited with ${script.status}`);
  process.exit(1);
}

/** A frame's name, less its address: `JS:*name file:line:column` for JavaScript. */
const framesOf = (sample: string) =>
  sample
    .split('\n')
    .map((line) => line.trim().replace(/^[0-9a-f]+ /, ''))
    .filter(Boolean);

/** The package (`postgres`, `@fastify/cookie`), the Node module (`node:net`) or the file of ours. */
function moduleOf(frame: string): string {
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame);
  if (packageMatch) return packageMatch[1]!;
  const nodeMatch = /(node:[\w/_]+)/.exec(frame);
  if (nodeMatch) return nodeMatch[1]!;
  const ours = /(?:file:\/\/)?\/[^ ]*?\/((?:server|shared|bench|loadtest)\/[\w/.-]+?)(?::\d+)+$/.exec(frame);
  return ours ? ours[1]! : frame.replace(/^JS:[*~^]?/, '').slice(0, 60);
}

const filter = under ? new RegExp(under) : null;
const counts = new Map<string, number>();
let total = 0;
let kept = 0;
for (const sample of script.stdout.split('\n\n')) {
  const frames = framesOf(sample);
  if (frames.length === 0) continue;
  total += 1;
  if (filter && !frames.some((frame) => filter.test(frame))) continue;
  kept += 1;
  const js = frames.find((frame) => frame.startsWith('JS:'));
  let key: string;
  if (by === 'top') key = frames[0]!;
  else if (!js) key = `(no JavaScript on the stack) ${frames[0]}`;
  else key = by === 'module' ? moduleOf(js) : js.replace(/^JS:[*~^]?/, '').replace(/file:\/\/|\/[^ ]*?\/node_modules\//g, '');
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

console.log(`${total} samples${filter ? `, ${kept} (${((100 * kept) / total).toFixed(1)} %) under /${under}/` : ''}; shares of all samples:`);
for (const [key, count] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
  console.log(`${((100 * count) / total).toFixed(1).padStart(6)} %  ${key}`);
}
