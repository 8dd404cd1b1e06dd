/**
 * The load tool's REST client against a small local HTTP server that holds one path until told: what
 * a call waits for a connection of the tool's pool is counted, so that the tool's own queue can be told
 * apart from the server's time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Rest } from '../../loadtest/rest';

describe('the load tool’s REST client', () => {
  let server: http.Server;
  let base: URL;
  /** Requests to /hold, answered when released. */
  let held: http.ServerResponse[];
  let rest: Rest;

  beforeEach(async () => {
    held = [];
    server = http.createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      if (request.url === '/hold') held.push(response);
      else response.end(JSON.stringify({ path: request.url }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });

  afterEach(async () => {
    for (const response of held) response.end('{}');
    rest.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const until = async (condition: () => boolean) => {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it('counts the wait for a connection when every one of its pool is busy', async () => {
    rest = new Rest(1);
    const holding = rest.request(base, 'GET', 'GET /hold', '/hold');
    await until(() => held.length === 1);
    const waiting = rest.request<{ path: string }>(base, 'GET', 'GET /fast', '/fast');
    await new Promise((resolve) => setTimeout(resolve, 150));
    held[0]!.end('{}');
    expect((await holding).status).toBe(200);
    expect((await waiting).body).toEqual({ path: '/fast' });

    expect(rest.poolWait.count).toBe(2);
    // The second call waited for the first to give the one connection back; the answer's time includes it.
    expect(rest.poolWait.max).toBeGreaterThanOrEqual(140);
    expect(rest.latency.get('GET /fast')!.max).toBeGreaterThanOrEqual(rest.poolWait.max);
  });

  it('counts the calls still out, answered or failed, so that a party can wait for them to end', async () => {
    rest = new Rest();
    const holding = rest.request(base, 'GET', 'GET /hold', '/hold');
    const fast = rest.request(base, 'GET', 'GET /fast', '/fast');
    const refused = expect(rest.request(new URL('http://127.0.0.1:1'), 'GET', 'GET /nowhere', '/nowhere')).rejects.toThrow(/ECONNREFUSED/);
    expect(rest.inFlight).toBe(3);
    await fast;
    await refused;
    expect(rest.inFlight).toBe(1);
    await until(() => held.length === 1);
    held[0]!.end('{}');
    await holding;
    expect(rest.inFlight).toBe(0);
  });
});

describe('the load tool’s REST client at an IPv6 address', () => {
  let server: http.Server;
  let rest: Rest;

  beforeEach(async () => {
    server = http.createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ path: request.url }));
    });
    await new Promise<void>((resolve) => server.listen(0, '::1', resolve));
  });

  afterEach(async () => {
    rest.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reaches http://[::1]:port, as --url writes it', async () => {
    rest = new Rest();
    const base = new URL(`http://[::1]:${(server.address() as AddressInfo).port}`);
    const reply = await rest.request<{ path: string }>(base, 'GET', 'GET /healthz', '/healthz');
    expect(reply).toMatchObject({ status: 200, body: { path: '/healthz' } });
  });
});
