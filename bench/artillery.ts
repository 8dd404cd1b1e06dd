/**
 * Artillery 2 (its built-in `socketio` engine) against the bare relay, as a baseline measured in the same
 * run as the load tool's own client (bench/lean-client-rates.ts, RATES_ARTILLERY).
 *
 * Artillery is not a dependency of this project: 2.x needs Node ≥ 22 and brings some hundreds of
 * packages. bench/README.md says how to install it (and a Node 22) beside the checkout; this module is
 * given the paths.
 *
 * The scenario is what Artillery's documentation shows for Socket.IO: each virtual user connects with its
 * user and partner as handshake auth (scenario level, from a CSV payload), then loops `message:send` with
 * an acknowledgement and a think time, so that `users / think` messages a second go out. The relay answers
 * each as it answers the lean client's: the ack, and `message:new` at both sockets of the pair.
 *
 * Measured: the Artillery process's CPU (user + system of all its threads, from /proc/<pid>/stat) over a
 * window that starts once every virtual user has connected and sent, divided by the messages the relay
 * relayed in that window. Start-up (Artillery loads for seconds) and the arrival phase are outside it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { processCpuMs } from './lib';

export interface ArtilleryInstall {
  /** A Node ≥ 22 binary. */
  node: string;
  /** Artillery's entry point (`node_modules/artillery/bin/run`). */
  artillery: string;
}

export interface ArtilleryRound {
  /** Messages the relay relayed in the window. */
  messages: number;
  /** Messages per second in the window. */
  rate: number;
  /** The Artillery process's CPU per message in the window, µs. */
  cpuMicrosPerMessage: number;
  /** The load average at the window's end. */
  load: string;
}

/** Artillery's version, from the package its entry point belongs to (`bin/run` → `package.json`). */
export function artilleryVersion(install: ArtilleryInstall): string {
  const manifest = JSON.parse(readFileSync(path.join(path.dirname(install.artillery), '..', 'package.json'), 'utf8')) as { version: string };
  return `Artillery ${manifest.version}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The payload: users `firstUser` … `firstUser + 2·pairs − 1`, socket 2k and 2k+1 partners, pair k in conversation k + 1. */
function users(pairs: number, firstUser: number) {
  const rows = Array.from({ length: pairs * 2 }, (_, i) => {
    const user = firstUser + i;
    const partner = i % 2 === 0 ? user + 1 : user - 1;
    return `${user},${partner},${Math.floor(i / 2) + 1}`;
  });
  return `${rows.join('\n')}\n`;
}

/** The config every scenario here shares: the relay, the payload, `arrivals` virtual users over `seconds`. */
const config = (url: string, arrivals: number, seconds: number, extra = '') => `config:
  target: "${url}"
  payload:
    path: "./users.csv"
    fields: ["user", "partner", "conversation"]
    order: sequence
  phases:
    - duration: ${seconds}
      arrivalCount: ${arrivals}
  socketio:
    transports: ["websocket"]
${extra}scenarios:
  - engine: socketio
    socketio:
      auth:
        user: "{{ user }}"
        partner: "{{ partner }}"
    flow:
`;

/** The scenario and its payload: users `firstUser` … `firstUser + 2·pairs − 1`, socket 2k and 2k+1 partners. */
function scenario(url: string, pairs: number, firstUser: number, thinkMs: number, loops: number) {
  const yaml = `${config(url, pairs * 2, 2)}      - loop:
          - emit:
              channel: "message:send"
              data:
                conversation_id: "{{ conversation }}"
                content: "hello"
                client_id: "{{ $randomString() }}"
            acknowledge: {}
          - think: "${thinkMs}ms"
        count: ${loops}
`;
  return { yaml, csv: users(pairs, firstUser) };
}

/**
 * Artillery runs its virtual users in `cpus − 1` worker threads and splits the arrivals between them,
 * each worker reading the CSV payload from its first row: on more than two CPUs users would repeat and
 * the first/last-arrival heap readings would be per worker. The figures here are for two CPUs.
 */
export const ARTILLERY_FITS = os.cpus().length <= 2;

/**
 * Runs `artillery run <script>` in a temporary folder holding `files`, gives `use` the process and a
 * reader of what it printed, and stops it (SIGKILL: its end-of-run report is not wanted) when `use` is done.
 */
async function withArtillery<T>(
  install: ArtilleryInstall,
  files: Record<string, string>,
  script: string,
  use: (child: ChildProcess, output: () => string, dir: string) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'artillery-'));
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  let output = '';
  // --expose-gc: the heap reading's full GC (its worker inherits the flag).
  const child = spawn(install.node, ['--expose-gc', install.artillery, 'run', '--quiet', script], {
    cwd: dir,
    env: { ...process.env, ARTILLERY_DISABLE_TELEMETRY: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    return await use(child, () => output, dir);
  } finally {
    child.kill('SIGKILL');
    await exited;
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * One round of Artillery at about `rate` msg/s over `pairs` pairs of virtual users for a `seconds` window.
 * `relayed` reads the relay's running count of relayed messages.
 */
export async function artilleryRound(
  install: ArtilleryInstall,
  options: { url: string; pairs: number; firstUser: number; rate: number; seconds: number; relayed: () => Promise<number> },
): Promise<ArtilleryRound> {
  const thinkMs = Math.round((options.pairs * 2 * 1000) / options.rate);
  const arrivalMs = 2000;
  const warmMs = 2000;
  // Enough loops to outlast the arrival, the warm-up and the window; the process is stopped after it.
  const loops = Math.ceil((arrivalMs + warmMs + options.seconds * 1000 + 10_000) / thinkMs);
  const { yaml, csv } = scenario(options.url, options.pairs, options.firstUser, thinkMs, loops);
  return withArtillery(install, { 'relay.yml': yaml, 'users.csv': csv }, 'relay.yml', async (child, output) => {
    // Wait for the first message, then for every virtual user to have arrived and settled.
    const first = await options.relayed();
    const deadline = performance.now() + 60_000;
    while ((await options.relayed()) === first) {
      if (child.exitCode !== null || performance.now() > deadline) throw new Error(`Artillery sent nothing:\n${output()}`);
      await sleep(50);
    }
    await sleep(arrivalMs + warmMs);
    const countBefore = await options.relayed();
    const cpuBefore = processCpuMs(child.pid!);
    const startedAt = performance.now();
    await sleep(options.seconds * 1000);
    const cpuAfter = processCpuMs(child.pid!);
    const countAfter = await options.relayed();
    const elapsed = (performance.now() - startedAt) / 1000;
    if (child.exitCode !== null || cpuBefore === null || cpuAfter === null) throw new Error(`Artillery exited during the window:\n${output()}`);
    const messages = countAfter - countBefore;
    return {
      messages,
      rate: messages / elapsed,
      cpuMicrosPerMessage: ((cpuAfter - cpuBefore) * 1000) / Math.max(1, messages),
      load: os.loadavg().map((n) => n.toFixed(1)).join(' '),
    };
  });
}

/**
 * Artillery's heap per connected virtual user: `count` users arrive over a few seconds and wait. A
 * processor function in its worker thread (where the virtual users live) reads the heap after a full GC
 * when the first user has connected and when the last has, and writes both to a file.
 * (The processor runs in Artillery's one worker: see ARTILLERY_FITS.)
 */
export async function artilleryHeapPerUser(install: ArtilleryInstall, options: { url: string; count: number; firstUser: number }): Promise<number> {
  const processor = `const fs = require('node:fs');
const v8 = require('node:v8');
let arrived = 0;
let first = 0;
const heap = () => {
  global.gc();
  global.gc();
  return v8.getHeapStatistics().used_heap_size;
};
module.exports = {
  arrived(context, events, done) {
    arrived += 1;
    if (arrived === 1) first = heap();
    if (arrived === ${options.count}) fs.writeFileSync('heap.json', JSON.stringify({ first, last: heap() }));
    done();
  },
};
`;
  const yaml = `${config(options.url, options.count, Math.ceil(options.count / 500), '  processor: "./processor.js"\n')}      - function: "arrived"
      - think: "600s"
`;
  const files = { 'heap.yml': yaml, 'processor.js': processor, 'users.csv': users(options.count / 2, options.firstUser) };
  return withArtillery(install, files, 'heap.yml', async (child, output, dir) => {
    const deadline = performance.now() + 120_000;
    for (;;) {
      try {
        const { first, last } = JSON.parse(readFileSync(path.join(dir, 'heap.json'), 'utf8')) as { first: number; last: number };
        return (last - first) / (options.count - 1);
      } catch {
        if (child.exitCode !== null || performance.now() > deadline) throw new Error(`Artillery's users did not all arrive:\n${output()}`);
        await sleep(200);
      }
    }
  });
}
