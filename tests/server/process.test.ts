import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { io } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { client } from '../helpers/http';
import { freePort } from '../helpers/ports';
import { backends, startServer, type TestServer } from '../helpers/server';

interface LogLine {
  level: number;
  time: number;
  msg: string;
  [key: string]: unknown;
}

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const root = path.resolve(import.meta.dirname, '../..');

/** `npm run serve` as an operator starts it, with its stdout split into lines as they come. */
class ServedProcess {
  readonly lines: string[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;
  private readonly waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];

  constructor(env: Record<string, string>, command: string[] = ['npm', 'run', '--silent', 'serve']) {
    // --silent keeps npm's own "> eventmatch serve" banner out of the server's stdout.
    this.child = spawn(command[0]!, command.slice(1), {
      cwd: root,
      env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', STRIPE_SECRET_KEY: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: `stop` ends npm and the server node runs under it together.
      detached: true,
    });
    let pending = '';
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const line of parts.filter(Boolean)) {
        this.lines.push(line);
        for (const waiter of [...this.waiters]) {
          if (!waiter.test(line)) continue;
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => this.stderr.push(chunk));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  }

  get pid() {
    return this.child.pid!;
  }

  /** Resolves with the first stdout line (already seen or still to come) that passes `test`. */
  waitForLine(test: (line: string) => boolean, what: string): Promise<string> {
    const seen = this.lines.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      this.waiters.push({ test, resolve });
      void this.exited.then(({ code }) =>
        reject(new Error(`exited (${code}) before ${what}; stderr: ${this.stderr.join('').slice(-2000)}`)),
      );
    });
  }

  /** The first line already seen or still to come whose JSON `msg` is `msg`. */
  waitForMessage(msg: string): Promise<LogLine> {
    return this.waitForLine((line) => parse(line)?.msg === msg, `"${msg}"`).then((line) => parse(line)!);
  }

  kill(signal: NodeJS.Signals) {
    this.child.kill(signal);
  }

  get running() {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * What production runs: the bundle in dist/server, built from the sources as they are now, started
   * on a free port with a fresh DATA_DIR and no client build (which must not stop the API), once it
   * says it is listening. `command` runs instead of `npm run serve` (a preload, say), with `env` added.
   */
  static async start(prefix: string, env: Record<string, string> = {}, command?: string[]) {
    await promisify(execFile)('npm', ['run', '--silent', 'build:server'], { cwd: root });
    return ServedProcess.startIn(await mkdtemp(path.join(os.tmpdir(), prefix)), env, command);
  }

  /** The bundle as built, started as `start` starts it, on a DATA_DIR that was used before. */
  static async startIn(dataDir: string, env: Record<string, string> = {}, command?: string[]) {
    const port = await freePort();
    const served = new ServedProcess(
      { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', CLIENT_DIR: path.join(dataDir, 'no-client'), ...env },
      command,
    );
    await served.waitForLine((line) => parse(line)?.msg.startsWith('Server listening at') ?? false, 'listening');
    return { served, dataDir, port };
  }

  /** After the tests: killed only if still running (a test failed before its own signal), waited for, then its files removed. */
  static async stop(served: ServedProcess | undefined, dataDir: string | undefined) {
    if (served?.running) {
      // The whole group: npm does not pass SIGKILL on, and the server under it would live on.
      process.kill(-served.pid, 'SIGKILL');
      await served.exited;
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

const parse = (line: string): LogLine | null => {
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return null;
  }
};

describe('the served process (npm run build:server, then npm run serve)', () => {
  let dataDir: string;
  let port: number;
  let served: ServedProcess;

  beforeAll(async () => {
    ({ served, dataDir, port } = await ServedProcess.start('eventmatch-process-', { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' }));
  }, 120_000);

  afterAll(() => ServedProcess.stop(served, dataDir));

  it('answers /healthz and /readyz with its embedded database under DATA_DIR', async () => {
    const api = client(`http://127.0.0.1:${port}`);
    const health = await api.get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    const ready = await api.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: 'ok' } });
    expect(existsSync(path.join(dataDir, 'db'))).toBe(true);
    expect(existsSync(path.join(dataDir, 'media'))).toBe(true);
  });

  it('starts its background jobs and says how it sells plans', async () => {
    const jobs = await served.waitForMessage('background jobs started');
    expect(jobs.jobs).toEqual([
      { name: 'upload-sweep', everyMs: 3_600_000, scope: 'cluster' },
      { name: 'token-sweep', everyMs: 60_000, scope: 'instance' },
      { name: 'ended-conversations-purge', everyMs: 3_600_000, scope: 'cluster' },
      { name: 'expired-tokens-purge', everyMs: 3_600_000, scope: 'cluster' },
      { name: 'spent-likes-purge', everyMs: 3_600_000, scope: 'cluster' },
      { name: 'table-upkeep', everyMs: 60_000, scope: 'cluster' },
      { name: 'orphan-file-sweep', everyMs: 21_600_000, scope: 'cluster' },
      { name: 'outbox-sweep', everyMs: 21_600_000, scope: 'instance' },
      // The local test checkout's (CHECKOUT_MODE=test, the default): its cancelled plans end on time.
      { name: 'test-plan-end', everyMs: 60_000, scope: 'cluster' },
    ]);
    expect(await served.waitForMessage('checkout: test')).toMatchObject({ level: 30, checkoutMode: 'test' });
  });

  it('refuses a second process on its DATA_DIR in one plain line, leaving the first serving', async () => {
    const env = { PORT: String(await freePort()), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', CLIENT_DIR: path.join(dataDir, 'no-client') };
    const second = new ServedProcess(env);
    expect(await second.exited).toEqual({ code: 1, signal: null });
    // The holder is the node process under npm's (served.pid is npm's).
    expect(second.stderr.join('').trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^Configuration error: the embedded database in ${path.join(dataDir, 'db')} is in use by another process \\(pid \\d+\\): stop it, or give this one another DATA_DIR\\.$`),
      ),
    ]);
    expect((await client(`http://127.0.0.1:${port}`).get('/readyz')).status).toBe(200);
  });

  it('refuses a port in use in one plain line that names it', async () => {
    const otherDataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-port-taken-'));
    onTestFinished(() => rm(otherDataDir, { recursive: true, force: true }));
    const second = new ServedProcess({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: otherDataDir, LOG_LEVEL: 'info', CLIENT_DIR: path.join(otherDataDir, 'no-client') });
    expect(await second.exited).toEqual({ code: 1, signal: null });
    expect(second.stderr.join('').trim().split('\n')).toEqual([
      `Configuration error: PORT ${port} is in use on 127.0.0.1 by another process: stop it, or set another PORT.`,
    ]);
    // Refused before it made a database there: it told the operator at once, not after an initdb.
    expect(existsSync(path.join(otherDataDir, 'db'))).toBe(false);
  });

  it('on SIGTERM finishes the upload in flight, drops sockets, exits 0 promptly and frees the port', async () => {
    const url = `http://127.0.0.1:${port}`;
    // A real account and a live socket: shutdown must not wait for clients to leave.
    const api = client(url);
    const account = { first_name: 'Op', last_name: 'Erator', username: 'operator@example.com', password: 'Shutdown-Drill-2026', password2: 'Shutdown-Drill-2026' };
    expect((await api.post('/api/auth/register/', { json: account })).status).toBe(201);
    const login = await api.post('/api/auth/', { json: { username: account.username, password: account.password } });
    expect(login.status).toBe(200);
    const socket = io(url, { auth: { token: login.body.token }, transports: ['websocket'], reconnection: false });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    const disconnected = new Promise<string>((resolve) => socket.once('disconnect', resolve));

    // A large photo takes the server a while to process: SIGTERM lands while it is in flight.
    const photo = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
      .jpeg()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'big.jpg');
    const inFlight = fetch(`${url}/api/uploads/`, { method: 'POST', headers: { authorization: `Token ${login.body.token}` }, body: form });
    await served.waitForLine((line) => {
      const parsed = parse(line);
      return parsed?.msg === 'incoming request' && (parsed.req as { url?: string } | undefined)?.url === '/api/uploads/';
    }, 'the upload to arrive');

    served.kill('SIGTERM');
    const upload = await inFlight;
    expect(upload.status).toBe(201);
    const { url: photoUrl } = (await upload.json()) as { url: string };
    expect(existsSync(path.join(dataDir, 'media', photoUrl.slice('/media/'.length)))).toBe(true);

    const exit = await Promise.race([
      served.exited,
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 15_000).unref()),
    ]);
    // On failure, the last log lines say where shutdown stalled.
    expect(exit, [...served.lines.slice(-6), ...served.stderr].join('\n').slice(-3000)).toEqual({ code: 0, signal: null });
    await disconnected;
    socket.close();
    expect(await portAccepts(port)).toBe(false);

    const shutdown = served.lines.map(parse).find((line) => line?.msg.startsWith('shutting down'));
    expect(shutdown).toMatchObject({ signal: 'SIGTERM', level: 30 });
  });

  // On its DATA_DIR once the process above has left it (the test before ends it): a first start, an
  // initdb and every migration, is seconds of a core that these need not pay again.
  it.each(['rejection', 'exception'] as const)('after an error nobody caught (%s), logs it with what it was, shuts down in order and exits 1', async (crash) => {
    await ServedProcess.stop(served, undefined);
    const crashing = await ServedProcess.startIn(dataDir, { CRASH: crash }, [process.execPath, 'tests/fixtures/crash-on-signal.mjs']);
    onTestFinished(() => ServedProcess.stop(crashing.served, undefined));
    crashing.served.kill('SIGUSR2');
    const fatal = await crashing.served.waitForLine((line) => parse(line)?.level === 60, 'the fatal line').then(parse);
    expect(fatal).toMatchObject({
      origin: crash === 'rejection' ? 'unhandledRejection' : 'uncaughtException',
      err: { message: crash === 'rejection' ? 'rejected, and nothing handled it' : 'thrown from a timer, and nothing caught it' },
    });
    expect((fatal!.err as { stack?: string }).stack).toContain('crash-on-signal.mjs');
    const shutdown = await crashing.served.waitForLine((line) => parse(line)?.msg.startsWith('shutting down') ?? false, 'shutdown');
    expect(parse(shutdown)).toMatchObject({ level: 30, cause: crash === 'rejection' ? 'unhandledRejection' : 'uncaughtException' });
    expect(await crashing.served.exited).toEqual({ code: 1, signal: null });
    expect(await portAccepts(crashing.port)).toBe(false);
  });

  it('runs a bundle that imports only Node built-ins and production dependencies (the image installs no others)', async () => {
    interface Metafile {
      outputs: Record<string, { entryPoint?: string; imports: { path: string; external?: boolean }[] }>;
    }
    const meta = JSON.parse(await readFile(path.join(root, 'dist/server/meta.json'), 'utf8')) as Metafile;
    const bundle = Object.values(meta.outputs).find((output) => output.entryPoint === 'server/main.ts');
    const { dependencies } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
    const imported = new Set(bundle!.imports.filter((entry) => entry.external).map((entry) => entry.path));
    const packages = [...imported].filter((specifier) => !specifier.startsWith('node:') && !builtinModules.includes(specifier)).map(packageOf);
    expect(packages).toContain('fastify');
    expect(packages.filter((name) => !(name in dependencies))).toEqual([]);
  });

  it('wrote its logs as JSON lines (pino), with request logs carrying an id', () => {
    expect(served.lines.length).toBeGreaterThan(3);
    for (const line of served.lines) {
      const parsed = parse(line);
      expect(parsed, line).not.toBeNull();
      expect(parsed).toMatchObject({ level: expect.any(Number), time: expect.any(Number), msg: expect.any(String) });
    }
    const completed = served.lines.map(parse).filter((line) => line?.msg === 'request completed');
    expect(completed.length).toBeGreaterThan(0);
    expect(completed[0]).toMatchObject({ reqId: expect.any(String), res: { statusCode: expect.any(Number) } });
    // Logs never carry a bearer token.
    expect(served.lines.join('\n')).not.toMatch(/Token [A-Za-z0-9_-]{20,}/);
  });
});

describe.each(backends)('readiness on %s', (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    // The hung check below is waited out: half a second, not the default 2 s, on each backend.
    server = await startServer({ backend, config: { readinessTimeoutMs: 500 } });
  });
  afterEach(() => {
    server.app.readinessChecks.delete('stuck');
  });
  afterAll(async () => {
    // The database was closed on purpose below; closing it again may complain.
    await server.close().catch(() => {});
  });

  it('is not ready while a required check hangs, and answers anyway', async () => {
    server.app.readinessChecks.set('stuck', { check: () => new Promise(() => {}), required: true });
    const response = await client(server.url).get('/readyz');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'unavailable', checks: { database: 'ok', stuck: 'failing' } });
  });

  it('stays ready while a check that is only reported fails (as Redis is), and says so', async () => {
    server.app.readinessChecks.set('stuck', { check: () => Promise.reject(new Error('down')), required: false });
    const response = await client(server.url).get('/readyz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok', checks: { database: 'ok', stuck: 'failing' } });
  });

  it('answers 503 once the database is down, while /healthz stays up', async () => {
    const api = client(server.url);
    expect((await api.get('/readyz')).status).toBe(200);
    await server.app.database.close();
    const response = await api.get('/readyz');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'unavailable', checks: { database: 'failing' } });
    expect((await api.get('/healthz')).status).toBe(200);
  });
});
