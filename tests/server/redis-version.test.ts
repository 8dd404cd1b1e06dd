/**
 * A Redis older than 7 has no sharded pub/sub, which the Socket.IO adapter relies on: instances on it
 * would not hear each other. The server refuses to start on one, by name, instead of running deaf.
 * The old Redis is a small local fake speaking RESP that answers SPUBLISH as Redis 6 does.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError } from '../../server/config';
import { openRedis } from '../../server/lib/redis';
import { freePort } from '../helpers/ports';

const TOO_OLD = 'REDIS_URL names a Redis without sharded pub/sub (SPUBLISH): Eventmatch needs Redis 7 or newer.';
const silent = { warn: () => {}, info: () => {}, error: () => {} } as unknown as FastifyBaseLogger;

/** The commands in a chunk of RESP arrays (`*2\r\n$4\r\nPING\r\n…`); enough for one client's traffic. */
function commandsIn(buffered: string): { commands: string[][]; rest: string } {
  const commands: string[][] = [];
  let at = 0;
  for (;;) {
    const start = at;
    const header = buffered.indexOf('\r\n', at);
    if (buffered[at] !== '*' || header < 0) return { commands, rest: buffered.slice(start) };
    const count = Number(buffered.slice(at + 1, header));
    at = header + 2;
    const command: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const lengthEnd = buffered.indexOf('\r\n', at);
      if (lengthEnd < 0) return { commands, rest: buffered.slice(start) };
      const length = Number(buffered.slice(at + 1, lengthEnd));
      if (buffered.length < lengthEnd + 2 + length + 2) return { commands, rest: buffered.slice(start) };
      command.push(buffered.slice(lengthEnd + 2, lengthEnd + 2 + length));
      at = lengthEnd + 2 + length + 2;
    }
    commands.push(command);
  }
}

/** Redis 6 as a client sees it: everything is OK, PING is PONG, and SPUBLISH is not a command. */
function startRedis6(port: number): Promise<Server> {
  const server = createServer((socket: Socket) => {
    let buffered = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      const { commands, rest } = commandsIn(buffered + chunk);
      buffered = rest;
      for (const [name = ''] of commands) {
        const upper = name.toUpperCase();
        if (upper === 'PING') socket.write('+PONG\r\n');
        else if (upper === 'SPUBLISH') socket.write("-ERR unknown command 'SPUBLISH', with args beginning with: \r\n");
        else socket.write('+OK\r\n');
      }
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

describe('a Redis older than 7', () => {
  let redis6: Server;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    redis6 = await startRedis6(port);
    url = `redis://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise<void>((resolve) => redis6.close(() => resolve())));

  it('is refused when the instance opens it, by what it lacks', async () => {
    await expect(openRedis({ url, prefix: 'old-redis', log: silent })).rejects.toEqual(new ConfigError(TOO_OLD));
  });

  // A server process's start: seconds on a busy CI machine, for tsx to load the server's modules.
  it('stops the server at start with one line that names the setting, and exit code 1, before making a database', { timeout: 120_000 }, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-old-redis-'));
    // One process (not npx's tree), so that a server that did start is stopped with the test, even
    // one that timed out.
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { ...process.env, PORT: String(await freePort()), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: url, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(async () => {
      child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // A server that started instead never exits: the test times out. (No shorter guess: a timer, or a
    // knock on a port another test's server may have taken since, can call a slow start running.)
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr.trim().split('\n').at(-1)).toBe(`Configuration error: ${TOO_OLD}`);
    expect(code).toBe(1);
    // Redis is opened first: no embedded database was made (and migrated) for a server that cannot run.
    expect(existsSync(path.join(dataDir, 'db'))).toBe(false);
  });
});
