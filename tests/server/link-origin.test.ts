/**
 * Where the links the server makes point when PUBLIC_URL is unset: at the address each request came
 * to when that address names this machine (an organizer at the laptop's network address gets a QR code
 * the phones on the Wi-Fi can open), and never at a site a Host header names (a password-reset e-mail
 * cannot be pointed at someone else's server). With PUBLIC_URL set, always there.
 */
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent } from '../helpers/events';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { startSmtpServer, type TestSmtpServer } from '../helpers/mail';
import { serverPerSuite, type TestServer } from '../helpers/server';

/** A JSON request to the server at 127.0.0.1, under the Host header given. */
function requestAs(
  server: TestServer,
  host: string,
  method: string,
  path: string,
  options: { token?: string; json?: unknown; headers?: Record<string, string> } = {},
) {
  const body = options.json === undefined ? undefined : JSON.stringify(options.json);
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const request = httpRequest(`${server.url}${path}`, {
      method,
      headers: {
        host,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(options.token ? { authorization: `Token ${options.token}` } : {}),
        ...options.headers,
      },
    });
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: text ? JSON.parse(text) : null }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const port = (server: TestServer) => new URL(server.url).port;
/** The link of the next password-reset e-mail to `email` (past the sign-up's verification e-mail). */
async function nextResetLink(smtp: TestSmtpServer, email: string): Promise<string | undefined> {
  for (;;) {
    const link = (await smtp.nextMailTo(email)).text.split('\n').find((line) => line.includes('/reset-password?token='));
    if (link) return link;
  }
}

describe('links made for a request, with PUBLIC_URL unset', () => {
  let smtp: TestSmtpServer;
  let organizer: TestUser;

  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(() => smtp?.close());
  const server = serverPerSuite(() => ({
    config: {
      mail: { smtpUrl: smtp.url, from: 'Eventmatch <no-reply@eventmatch.test>' },
      // One account asks for many resets here; the throttles have tests of their own.
      limits: { 'password-reset:email': { max: 100, windowMs: 60_000 }, 'password-reset:ip': { max: 100, windowMs: 60_000 } },
    },
  }));
  beforeAll(async () => {
    organizer = await makeCompletedUser(server);
  });

  const resetMailThrough = async (host: string, headers: Record<string, string> = {}) => {
    const asked = await requestAs(server, host, 'POST', '/api/auth/password-reset/', { json: { email: organizer.email }, headers });
    expect(asked.status).toBe(202);
    return nextResetLink(smtp, organizer.email);
  };

  it('point at this machine as the request named it: localhost, or its host name on the network', async () => {
    expect(server.publicUrl).toBe(server.url);
    expect(await resetMailThrough(`localhost:${port(server)}`)).toMatch(new RegExp(`^http://localhost:${port(server)}/reset-password\\?token=`));
    const named = `${os.hostname().toLowerCase()}:${port(server)}`;
    expect(await resetMailThrough(named)).toMatch(new RegExp(`^http://${named.replaceAll('.', '\\.')}/reset-password\\?token=`));

    const event = await makeEvent(server, organizer, { join_mode: 'qr' });
    const qr = await requestAs(server, `localhost:${port(server)}`, 'GET', `/api/events/${event.id}/qr/`, { token: organizer.token });
    expect(qr.status).toBe(200);
    expect(qr.body.url).toMatch(new RegExp(`^http://localhost:${port(server)}/e/${event.code}\\?t=`));
  });

  it('never point at another site a Host header names, but at the server’s own address', async () => {
    const hosts = ['party.attacker.example', `evil.example:${port(server)}`, '8.8.8.8', `localhost:${port(server)}@evil.example`, `localhost.evil.example`];
    for (const host of hosts) {
      expect(await resetMailThrough(host)).toMatch(new RegExp(`^${server.url.replaceAll('.', '\\.')}/reset-password\\?token=`));
    }
    const event = await makeEvent(server, organizer, { join_mode: 'qr' });
    const qr = await requestAs(server, 'evil.example', 'GET', `/api/events/${event.id}/qr/`, { token: organizer.token });
    expect(qr.body.url).toMatch(new RegExp(`^${server.url.replaceAll('.', '\\.')}/e/${event.code}\\?t=`));
  });

  it('take http or https from the proxy in front (X-Forwarded-Proto), and no other text as the link’s start', async () => {
    // The proxy is trusted (on loopback), but it may pass on a client's own header as it came.
    const host = `localhost:${port(server)}`;
    expect(await resetMailThrough(host, { 'x-forwarded-proto': 'https' })).toMatch(new RegExp(`^https://${host}/reset-password\\?token=`));
    for (const proto of ['https://evil.example/#', 'javascript:alert(1)//', 'ftp']) {
      expect(await resetMailThrough(host, { 'x-forwarded-proto': proto })).toMatch(new RegExp(`^${server.url.replaceAll('.', '\\.')}/reset-password\\?token=`));
    }
  });
});

describe('links made for a request, with PUBLIC_URL set', () => {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(() => smtp?.close());
  const server = serverPerSuite(() => ({
    config: { publicUrl: 'https://party.example.com', mail: { smtpUrl: smtp.url, from: 'Eventmatch <no-reply@eventmatch.test>' } },
  }));

  it('point at PUBLIC_URL whatever address the request came to', async () => {
    const organizer = await makeCompletedUser(server);
    const event = await makeEvent(server, organizer, { join_mode: 'qr' });
    for (const host of [`localhost:${port(server)}`, `127.0.0.1:${port(server)}`]) {
      const asked = await requestAs(server, host, 'POST', '/api/auth/password-reset/', { json: { email: organizer.email } });
      expect(asked.status).toBe(202);
      expect(await nextResetLink(smtp, organizer.email)).toMatch(/^https:\/\/party\.example\.com\/reset-password\?token=/);
      const qr = await requestAs(server, host, 'GET', `/api/events/${event.id}/qr/`, { token: organizer.token });
      expect(qr.body.url).toMatch(new RegExp(`^https://party\\.example\\.com/e/${event.code}\\?t=`));
    }
  });
});
