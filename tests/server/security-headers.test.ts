import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import helmet, { type HelmetOptions } from 'helmet';
import { afterEach, describe, expect, it } from 'vitest';
import { helmetHeaders } from '../../server/plugins/security-headers';
import { makeCompletedUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { startServer } from '../helpers/server';

/** What helmet's own middleware puts on a real response with these options, by lower-case name. */
async function helmetOnARealResponse(options: HelmetOptions): Promise<Record<string, string>> {
  const middleware = helmet(options);
  server = createServer((request, response) => middleware(request, response, () => response.end()));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const headers = Object.fromEntries(answer.headers);
  for (const name of ['connection', 'content-length', 'date', 'keep-alive', 'transfer-encoding']) delete headers[name];
  return headers;
}

let server: Server | null = null;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(null));
  server = null;
});

describe('the security headers, set once for every response', () => {
  it('are the ones helmet sets on a response, with its defaults and with options', async () => {
    const options: HelmetOptions = {
      contentSecurityPolicy: { directives: { 'img-src': ["'self'", 'data:'], 'connect-src': ["'self'", 'https://example.test'] } },
      crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
    };
    for (const each of [{}, options]) {
      const once = helmetHeaders(each);
      expect(Object.keys(once).length).toBeGreaterThan(10);
      expect(once).toEqual(await helmetOnARealResponse(each));
      await new Promise((resolve) => server!.close(resolve));
      server = null;
    }
    expect(helmetHeaders(options)['content-security-policy']).toContain("connect-src 'self' https://example.test");
  });

  it('refuses a directive that would depend on the request', () => {
    const nonce = () => "'nonce-abc'";
    expect(() => helmetHeaders({ contentSecurityPolicy: { directives: { 'script-src': ["'self'", nonce] } } })).toThrow(
      /depends on the request/,
    );
  });
});

describe('framing the app', () => {
  const framing = async (embedOrigins: string[]) => {
    const app = await startServer({ config: { embedOrigins } });
    try {
      const answer = await fetch(`${app.url}/login/`);
      await answer.arrayBuffer();
      const csp = answer.headers.get('content-security-policy') ?? '';
      return { ancestors: /frame-ancestors ([^;]*)/.exec(csp)?.[1], xFrameOptions: answer.headers.get('x-frame-options') };
    } finally {
      await app.close();
    }
  };

  it('is this site’s alone by default', async () => {
    expect(await framing([])).toEqual({ ancestors: "'self'", xFrameOptions: 'SAMEORIGIN' });
  });

  it('is also the sites EMBED_ORIGINS names, said by frame-ancestors alone', async () => {
    expect(await framing(['https://venue.example', 'http://localhost:5173'])).toEqual({
      ancestors: "'self' https://venue.example http://localhost:5173",
      xFrameOptions: null,
    });
  });
});

describe('upgrading the page’s requests to https', () => {
  const upgrades = async (publicUrl: string | null) => {
    const app = await startServer({ config: { publicUrl } });
    try {
      const answer = await fetch(`${app.url}/e/ABCDEF`);
      await answer.arrayBuffer();
      return (answer.headers.get('content-security-policy') ?? '').split(';').includes('upgrade-insecure-requests');
    } finally {
      await app.close();
    }
  };

  it('is asked only where users reach the app over https: at a plain http:// address no https:// answers', async () => {
    expect(await upgrades(null)).toBe(false);
    expect(await upgrades('https://party.example.com')).toBe(true);
  });
});

describe('caching what a signed-in user is answered', () => {
  it('is never allowed: a shared phone’s browser keeps no e-mail, profile or message after sign-out', async () => {
    const app = await startServer();
    try {
      const api = client(app.url);
      const user = await makeCompletedUser(app);
      for (const path of ['/api/users/me/', '/api/users/me/profile/', '/api/conversations/started/', '/api/users/me/blocks/']) {
        const answer = await api.get(path, { token: user.token });
        expect(answer.status, path).toBe(200);
        expect(answer.headers.get('cache-control'), path).toBe('no-store');
      }
      // What anyone may see stays as it was: a photo is kept an hour.
      const { body: me } = await api.get('/api/users/me/', { token: user.token });
      expect((await api.get(me.image)).headers.get('cache-control')).toBe('public, max-age=3600, must-revalidate');
    } finally {
      await app.close();
    }
  });
});
