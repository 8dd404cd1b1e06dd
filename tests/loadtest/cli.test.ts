import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartyResult } from '../../loadtest/party';
import { hasOpenssl, selfSignedCertificate } from '../helpers/certificate';
import { freePort } from '../helpers/ports';
import { backends, serverPerSuite, startServer } from '../helpers/server';
import { tcpProxy } from '../helpers/tcp-proxy';

const root = path.resolve(import.meta.dirname, '../..');
// PostgreSQL when the machine has it: a database copied on its side, not a PGlite started in this process.
const backend = backends.at(-1)!;

/**
 * The CLI as `npm run loadtest --` runs it (tsx), with its exit status and both streams; `interrupt`
 * sends it SIGINT once its output matches `when`, as Ctrl-C would (or does `then` instead); `spawned`
 * is handed the process; `env` is added to its environment.
 */
function loadtest(
  args: string[],
  interrupt?: { when: RegExp; then?: () => void },
  spawned?: (child: ChildProcess) => void,
  env?: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'loadtest/cli.ts'), ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    spawned?.(child);
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (interrupt && !interrupted && interrupt.when.test(stdout)) {
        interrupted = true;
        if (interrupt.then) interrupt.then();
        else child.kill('SIGINT');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run loadtest: the command line', () => {
  // A server with its own throttle left at a crowd's worst: two registrations a minute per address.
  const strict = serverPerSuite({ backend, config: { loginThrottle: { perIp: 2, perAccount: 10, windowMs: 60_000 } } });
  // And one set up for a load test, as the README says.
  const server = serverPerSuite({ backend, config: { limitMultiplier: 1000 } });
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-loadtest-cli-'));
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('--help prints the usage and every flag, and exits 0', async () => {
    const { code, stdout } = await loadtest(['--help']);
    expect(code).toBe(0);
    for (const flag of ['--url', '--attendees', '--minutes', '--event', '--instances', '--json', '--arrive-over', '--leave-share', '--like-share', '--drain-quiet', 'RATE_LIMIT_MULTIPLIER']) expect(stdout).toContain(flag);
    // Every way to exit 1 (PartyResult.ok): a send never answered fails the run as a lost one does.
    expect(stdout.replace(/\s+/g, ' ')).toMatch(/1 a message or match overlay lost or duplicated, a message:send never answered, or phones still offline/);
  });

  it('a URL where nothing listens is one line on stderr and exit 2, no stack trace', async () => {
    const port = await freePort();
    const { code, stderr, stdout } = await loadtest(['--url', `http://127.0.0.1:${port}`, '--attendees', '2', '--minutes', '0.1']);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(`loadtest: cannot reach http://127.0.0.1:${port}: ECONNREFUSED`);
    expect(stdout).toBe('');
  });

  it('a malformed URL or an unknown flag is refused the same way', async () => {
    const bad = await loadtest(['--url', 'not a url']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('loadtest: --url must be an http(s) address, not "not a url"');
    // Each of --instances likewise, before it is asked anything (a scheme left out reads as one named "localhost:").
    const schemeless = await loadtest(['--url', 'http://127.0.0.1:1', '--instances', 'http://127.0.0.1:1,localhost:3002']);
    expect(schemeless.code).toBe(2);
    expect(schemeless.stderr.trim()).toBe('loadtest: --instances must be an http(s) address, not "localhost:3002"');
    const unknown = await loadtest(['--url', 'http://127.0.0.1:1', '--guests', '3']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^loadtest: Unknown option '--guests'.*see --help/);
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
    const share = await loadtest(['--url', 'http://127.0.0.1:1', '--like-share', '1.5']);
    expect(share.code).toBe(2);
    expect(share.stderr.trim()).toBe('loadtest: --like-share 1.5 is not valid (see --help)');
    const negative = await loadtest(['--url', 'http://127.0.0.1:1', '--arrive-over=-5']);
    expect(negative.code).toBe(2);
    expect(negative.stderr.trim()).toBe('loadtest: --arrive-over -5 is not valid (see --help)');
    // Checked before anything is asked of the server (nothing listens on port 1).
    const late = await loadtest(['--url', 'http://127.0.0.1:1', '--minutes', '0.5', '--arrive-over', '20']);
    expect(late.code).toBe(2);
    expect(late.stderr.trim()).toBe('loadtest: --arrive-over 20 s: at least 0 and at most half the party (15 s)');
  });

  it('--attendees and --minutes have bounds, told with the flag before anything is asked', async () => {
    // A typo's 500,000 would otherwise register that many accounts and open a socket for each.
    const crowd = await loadtest(['--url', 'http://127.0.0.1:1', '--attendees', '500000']);
    expect(crowd.code).toBe(2);
    expect(crowd.stderr.trim()).toBe('loadtest: --attendees 500000 is not valid: a whole number from 2 to 10000 (one process, a socket each) (see --help)');
    const alone = await loadtest(['--url', 'http://127.0.0.1:1', '--attendees', '1']);
    expect(alone.stderr.trim()).toBe('loadtest: --attendees 1 is not valid: a whole number from 2 to 10000 (one process, a socket each) (see --help)');
    const long = await loadtest(['--url', 'http://127.0.0.1:1', '--minutes', '5000']);
    expect(long.code).toBe(2);
    expect(long.stderr.trim()).toBe('loadtest: --minutes 5000 is not valid: more than 0 and at most 1440 (a day) (see --help)');
    const help = await loadtest(['--help']);
    expect(help.stdout).toMatch(/--attendees <N> .*at most 10000/);
    expect(help.stdout).toMatch(/--minutes <M> .*at most 1440/);
  });

  it('a --json path that cannot be written is refused before the party, not after it', async () => {
    // Checked before anything is asked of the server (nothing listens on port 1).
    const missing = path.join(dir, 'no-such-folder', 'result.json');
    const nowhere = await loadtest(['--url', 'http://127.0.0.1:1', '--json', missing]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr.trim()).toBe(`loadtest: --json ${missing} cannot be written: ENOENT`);
    const folder = await loadtest(['--url', 'http://127.0.0.1:1', '--json', dir]);
    expect(folder.code).toBe(2);
    expect(folder.stderr.trim()).toBe(`loadtest: --json ${dir} cannot be written: EISDIR`);
    // A writable path is left as it was: nothing is made there before the results are.
    const fine = path.join(dir, 'result.json');
    const unreachable = await loadtest(['--url', 'http://127.0.0.1:1', '--json', fine]);
    expect(unreachable.stderr.trim()).toBe('loadtest: cannot reach http://127.0.0.1:1: ECONNREFUSED');
    await expect(readFile(fine, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('a server that throttles the registrations says what to set on it', async () => {
    const { code, stderr } = await loadtest(['--url', strict.url, '--attendees', '5', '--minutes', '0.1', '--state', path.join(dir, 'state.json')]);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('POST /api/auth/register/ was refused with 429');
    expect(stderr).toContain('RATE_LIMIT_MULTIPLIER=1000');
  });

  // The parties side by side: most of their time is spent waiting through them.
  it.concurrent('Ctrl-C ends the party early: the results so far are printed and written, exit 130', async () => {
    const json = path.join(dir, 'interrupted.json');
    const args = ['--url', server.url, '--attendees', '6', '--minutes', '2', '--leave-share', '0', '--json', json, '--state', path.join(dir, 'interrupted-state.json')];
    const started = performance.now();
    // Without a terminal, a plain progress line every 5 s: the second one of the party is ~5 s into it.
    const { code, stdout, stderr } = await loadtest(args, { when: /^ *\d+ s party .*\n(.*\n)*? *\d+ s party /m });
    expect(code).toBe(130);
    expect(stderr.trim()).toMatch(/^loadtest: SIGINT: ending the party now; the results follow once what was sent has arrived \(SIGINT again: stop at once\)$/);
    // Long before the two minutes were up.
    expect(performance.now() - started).toBeLessThan(60_000);
    const result = JSON.parse(await readFile(json, 'utf8')) as PartyResult;
    expect(result.interrupted_after_s).toBeGreaterThan(4);
    expect(result.interrupted_after_s).toBeLessThan(30);
    expect(result.counts.check_ins).toBe(6);
    expect(result.counts.swipes).toBeGreaterThan(0);
    expect(result.ok).toBe(true);
    expect(stdout).toContain(`Party: 6 attendees, 2 min (interrupted after ${result.interrupted_after_s} s), event ${result.event.code}`);
    expect(stdout).toContain('OK: nothing lost, nothing duplicated.');

    // Before the party began there is nothing to tell: it stops at once, in one line.
    const early = await loadtest(['--url', server.url, '--attendees', '6', '--state', path.join(dir, 'interrupted-state.json')], { when: /accounts in / });
    expect(early.code).toBe(130);
    expect(early.stderr.trim()).toBe('loadtest: SIGINT: stopped before the party began');
  }, 90_000);

  it.concurrent('a server that goes away mid-party leaves what was meant for its phones unconfirmed: no pass, exit 1', async () => {
    const proxy = await tcpProxy(server.url);
    const json = path.join(dir, 'gone.json');
    // Nothing arrives from a server that is gone: a second of quiet after the party tells as the default 10 s would.
    const args = ['--url', proxy.url, '--attendees', '6', '--minutes', '0.2', '--leave-share', '0', '--drain-quiet', '1', '--json', json, '--state', path.join(dir, 'gone-state.json')];
    // The server's link cut at the party's first plain progress line (~5 s in), for good.
    const { code, stdout } = await loadtest(args, { when: /^ *\d+ s party /m, then: () => proxy.cut() }).finally(() => proxy.close());
    expect(stdout).not.toContain('OK: nothing lost');
    expect(stdout).toContain('FAILED: 6 of 6 phones were still offline at the end (the server stopped answering?): what was meant for them is unconfirmed.');
    expect(code).toBe(1);
    const result = JSON.parse(await readFile(json, 'utf8')) as PartyResult;
    expect(result.counts.check_ins).toBe(6);
    expect(result.counts.offline_at_end).toBe(6);
    expect(result.ok).toBe(false);
  }, 60_000);

  it.skipIf(!hasOpenssl)('an https address: the party runs over TLS, REST and sockets alike', { concurrent: true, timeout: 60_000 }, async () => {
    // The deployment's HTTPS front, with a certificate of the test's own.
    const certificate = await selfSignedCertificate(await mkdtemp(path.join(dir, 'tls-')));
    const front = await tcpProxy(server.url, { tls: certificate });
    try {
      const args = ['--url', front.url, '--attendees', '4', '--minutes', '0.1', '--state', path.join(dir, 'https-state.json')];
      // A certificate Node does not trust: one line, with what to give it.
      const untrusted = await loadtest(args);
      expect(untrusted.code).toBe(2);
      expect(untrusted.stderr.trim()).toBe(
        `loadtest: cannot reach ${front.url}: DEPTH_ZERO_SELF_SIGNED_CERT (a certificate Node does not trust: give its CA with NODE_EXTRA_CA_CERTS=<file.pem>)`,
      );

      const json = path.join(dir, 'https.json');
      const { code } = await loadtest([...args, '--json', json], undefined, undefined, { NODE_EXTRA_CA_CERTS: certificate.file });
      const result = JSON.parse(await readFile(json, 'utf8')) as PartyResult;
      expect(result.url).toBe(front.url);
      expect(result.counts.check_ins).toBe(4);
      expect(result.counts.swipes).toBeGreaterThan(0);
      expect(result.latency_ms.presence_list.count).toBeGreaterThanOrEqual(4);
      expect(result.ok).toBe(true);
      expect(code).toBe(0);
    } finally {
      await front.close();
    }
  });

  it.concurrent('Ctrl-C during registration keeps the accounts already made: the next run reuses them', async () => {
    // One setup call at a time: the organizer is registered, then each guest, each one made (its
    // account kept) before the next one's registration is sent. As the second guest's is, the server's
    // answers are held and Ctrl-C sent: the first guest's account is made, no other can be meanwhile.
    let registrations = 0;
    let child: ChildProcess | null = null;
    const door = await tcpProxy(server.url, {
      onClientData: (chunk) => {
        if (!chunk.toString('latin1').includes('POST /api/auth/register/ ')) return;
        registrations += 1;
        if (registrations < 3) return;
        door.holdReplies();
        child?.kill('SIGINT');
      },
    });
    const stateFile = path.join(dir, 'registering-state.json');
    const args = ['--attendees', '10', '--minutes', '0.05', '--leave-share', '0', '--state', stateFile];
    const { code, stderr } = await loadtest(['--url', door.url, '--setup-concurrency', '1', ...args], undefined, (spawned) => (child = spawned)).finally(() =>
      door.close(),
    );
    expect(stderr.trim()).toBe('loadtest: SIGINT: stopped before the party began');
    expect(code).toBe(130);
    const kept = JSON.parse(await readFile(stateFile, 'utf8')) as { attendees: Array<{ id: number }> };
    expect(kept.attendees).toHaveLength(1);

    const json = path.join(dir, 'registering.json');
    const next = await loadtest(['--url', server.url, ...args, '--json', json]);
    expect(next.code).toBe(0);
    const result = JSON.parse(await readFile(json, 'utf8')) as PartyResult;
    expect(result.latency_ms.rest['POST /api/auth/register/']!.count).toBe(10 - kept.attendees.length);
  }, 90_000);

  it.concurrent('output piped into a reader that stops early: the party goes on, its status and --json still tell', async () => {
    const json = path.join(dir, 'piped.json');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'loadtest/cli.ts'), '--url', server.url, '--attendees', '4', '--minutes', '0.1', '--json', json, '--state', path.join(dir, 'piped-state.json')],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // As `| head -1`: the first line read, then the pipe closed.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stderr).toBe('');
    const result = JSON.parse(await readFile(json, 'utf8')) as PartyResult;
    expect(result.counts.check_ins).toBe(4);
    expect(code).toBe(result.ok ? 0 : 1);
  }, 60_000);

  it("Ctrl-C in the party's first moments still ends it with the results, exit 130", async () => {
    // Attendees arriving over the party's first second: Ctrl-C sent as the first one's socket reaches
    // the server, whose handshakes wait until the tool has said it is ending the party. Whenever the
    // live display's next figures come (once a second), nothing has happened at the party yet.
    const watched = await startServer({ backend, config: { limitMultiplier: 1000 } });
    let child: ChildProcess | null = null;
    const held: Array<() => void> = [];
    let ending = false;
    watched.app.io.use((_socket, next) => {
      if (ending) return next();
      held.push(next);
      if (held.length === 1) child?.kill('SIGINT');
    });
    const watch = (spawned: ChildProcess) => {
      child = spawned;
      let said = '';
      spawned.stderr!.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (ending || !said.includes('ending the party now')) return;
        ending = true;
        for (const next of held.splice(0)) next();
      });
    };
    const json = path.join(dir, 'first-moments.json');
    const args = ['--url', watched.url, '--attendees', '30', '--minutes', '1', '--arrive-over', '1', '--json', json, '--state', path.join(dir, 'first-moments-state.json')];
    const { code, stdout, stderr } = await loadtest(args, undefined, watch).finally(() => watched.close());
    expect(stderr.trim()).toMatch(/^loadtest: SIGINT: ending the party now; the results follow/);
    expect(code).toBe(130);
    const result = JSON.parse(await readFile(json, 'utf8')) as PartyResult;
    // Ended before a phone was in: those on their way were let in by the drain, and nobody swiped.
    expect(result.counts.swipes).toBe(0);
    expect(result.interrupted_after_s).not.toBeNull();
    expect(stdout).toContain(`Party: 30 attendees, 1 min (interrupted after ${result.interrupted_after_s} s)`);
  }, 90_000);
});

// No server needed: the limit is checked before anything is asked of one.
describe('npm run loadtest: the open-file limit', () => {
  it.skipIf(process.platform !== 'linux')('an open-file limit too low for the attendees is told up front, with what to run', async () => {
    // A shell whose limit (soft and hard: node cannot raise it) allows 300 files; nothing listens on port 1.
    const limited = (attendees: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          'sh',
          ['-c', 'ulimit -n 300 && exec "$@"', 'sh', process.execPath, '--import', 'tsx', path.join(root, 'loadtest/cli.ts'), '--url', 'http://127.0.0.1:1', '--attendees', attendees],
          { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
        );
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('exit', (code) => resolve({ code, stderr }));
      });
    const crowd = await limited('400');
    expect(crowd.code).toBe(2);
    expect(crowd.stderr.trim().split('\n')).toHaveLength(1);
    const needed = /^loadtest: 400 attendees need about (\d+) open files \(a socket each, up to 128 REST connections, the runtime's own\), but this process may open 300 \(ulimit -n\): its hard limit is 300, so raise that first: `ulimit -n (\d+)` as root/.exec(crowd.stderr);
    expect(needed).not.toBeNull();
    expect(Number(needed![1])).toBeGreaterThan(400 + 128);
    expect(needed![2]).toBe(needed![1]);
    // Within the limit, the run goes on to the server.
    const few = await limited('20');
    expect(few.stderr.trim()).toBe('loadtest: cannot reach http://127.0.0.1:1: ECONNREFUSED');
  });
});

// Side by side: two of them wait out a server's silence (5 s) or its slow answer (3 s), idle meanwhile.
describe.concurrent('npm run loadtest: a URL that is not the app', () => {
  it("a web server that answers 200 to anything is told apart from the app's, before the party", async () => {
    // A site's catch-all page: 200 and HTML for every path.
    const site = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Welcome</title>'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    try {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-loadtest-site-'));
      const { code, stderr } = await loadtest(['--url', url, '--attendees', '2', '--state', path.join(dir, 'state.json')]);
      await rm(dir, { recursive: true, force: true });
      expect(code).toBe(2);
      expect(stderr.trim()).toBe(`loadtest: ${url} does not look like this app's server (GET /healthz answered 200 text/html, not {"status":"ok"})`);
    } finally {
      await new Promise((resolve) => site.close(resolve));
    }
  });

  it('an address that takes the connection but never answers is told within seconds, not after a minute', async () => {
    // A hung process, or a service that waits for its own protocol, on that port: connected, and then nothing.
    const taken = new Set<net.Socket>();
    const silent = net.createServer((socket) => taken.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const started = performance.now();
      const { code, stderr } = await loadtest(['--url', url, '--attendees', '2']);
      expect(code).toBe(2);
      expect(stderr.trim()).toBe(`loadtest: cannot reach ${url}: no answer within 5 s`);
      expect(performance.now() - started).toBeLessThan(20_000);
    } finally {
      for (const socket of taken) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a slow server that does answer passes the check', async () => {
    // /healthz answered 3 s late; nothing else is there, so the run stops at the step after the check.
    const slow = http.createServer((request, response) => {
      if (request.url === '/healthz') setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'), 3000);
      else response.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found."}');
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-loadtest-slow-'));
    try {
      const { code, stderr } = await loadtest(['--url', url, '--attendees', '2', '--state', path.join(dir, 'state.json')]);
      expect(stderr.trim()).toBe('loadtest: POST /api/auth/register/ answered 404: Not found.');
      expect(code).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});
