/**
 * A benchmark's server in a child process (bench/realtime-server.ts), forked with IPC: the bare
 * Socket.IO relay or the real app. The parent asks it for its own CPU time, heap and event-loop delay,
 * so the load generator's own work is never counted as the server's.
 */
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { buildServer } from '../scripts/build-server.mjs';
import { SERVER_NODE_FLAGS } from '../scripts/start.mjs';
import { freePort } from '../tests/helpers/ports';
import type { ServerStats } from './realtime-server';

export type { ServerStats };

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** `gc`: after a full GC (for the heap); `snapshot`: a file for a heap snapshot, taken after it. */
  stats(gc?: boolean, snapshot?: string): Promise<ServerStats>;
  close(): Promise<void>;
}

export type ServerKind = 'relay' | 'app';

const root = path.resolve(import.meta.dirname, '..');

/**
 * The relay, or the app with `env` (DATABASE_URL …). `nodeFlags` come after the server's runtime flags
 * (scripts/start.mjs), so they can undo one. A busy machine can push an app's boot past Fastify's
 * plugin timeout, so it gets one more try; a server that dies after that ends the benchmark, loudly:
 * every figure after it would be meaningless.
 */
export async function startServerProcess(
  kind: ServerKind,
  env: Record<string, string> = {},
  nodeFlags: string[] = [],
  options: StartOptions = {},
): Promise<ServerProcess> {
  try {
    return await startOnce(kind, env, nodeFlags, options);
  } catch (error) {
    console.error(`  ${kind} server did not start (${(error as Error).message}); trying once more`);
    return startOnce(kind, env, nodeFlags, options);
  }
}

export interface StartOptions {
  /** The server's standard output, as it comes (a `--trace-gc-nvp` trace, say), instead of this process's. */
  onStdout?: (chunk: string) => void;
}

/**
 * bench/realtime-server.ts and the app it imports, bundled as production bundles the server
 * (scripts/build-server.mjs), once per benchmark run: the code production runs, with no TypeScript
 * loader in the server's process. (Through tsx, every named function is wrapped to keep its name, an
 * `Object.defineProperty` each time a closure is made; in turns at 1,000 and 2,000 msg/s the app's CPU
 * a message was the same either way, so the figures measured through tsx before stand.)
 */
let bundle: Promise<string> | undefined;
function benchServerBundle(): Promise<string> {
  const outfile = path.join(root, 'dist/bench/realtime-server.js');
  return (bundle ??= buildServer(outfile, 'bench/realtime-server.ts').then(() => outfile));
}

async function startOnce(kind: ServerKind, env: Record<string, string>, nodeFlags: string[], options: StartOptions): Promise<ServerProcess> {
  const port = await freePort();
  const child = fork(await benchServerBundle(), {
    cwd: root,
    execArgv: [...SERVER_NODE_FLAGS, '--expose-gc', ...nodeFlags],
    env: { ...process.env, LOG_LEVEL: 'error', ...env, PORT: String(port), BENCH_RELAY: kind === 'relay' ? '1' : '0' },
    stdio: ['ignore', options.onStdout ? 'pipe' : 'inherit', 'inherit', 'ipc'],
  });
  if (options.onStdout) child.stdout!.on('data', (chunk: Buffer) => options.onStdout!(chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
    child.on('message', (message: { type: string }) => {
      if (message.type === 'ready') resolve();
    });
  });
  const diedMidRun = (code: number | null) => {
    if (code !== 0) {
      console.error(`\n✖ ${kind} server exited with ${code} during the run`);
      process.exit(1);
    }
  };
  child.once('exit', diedMidRun);
  let nextId = 0;
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stats(gc = false, snapshot?: string) {
      const id = (nextId += 1);
      return new Promise((resolve) => {
        const listener = (message: ServerStats & { type: string; id: number }) => {
          if (message.type !== 'stats' || message.id !== id) return;
          child.off('message', listener);
          resolve(message);
        };
        child.on('message', listener);
        child.send({ type: 'stats', id, gc, snapshot });
      });
    },
    async close() {
      if (child.exitCode !== null) return;
      child.off('exit', diedMidRun);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.send({ type: 'close' });
      // Its figures are in: a server that fails to close cleanly (on a crowded machine, a shutdown past
      // Fastify's plugin timeout) is worth a line, not the rest of the run.
      const code = await exited;
      if (code !== 0) console.error(`  ${kind} server exited with ${code} on close`);
    },
  };
}
