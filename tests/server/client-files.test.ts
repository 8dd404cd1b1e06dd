import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverPerSuite } from '../helpers/server';

/** Say, the theme's script, which must run before the first paint. */
const INLINE_SCRIPT = "\n  document.documentElement.dataset.theme = 'dark';\n";

describe('the built client, served beside the API', () => {
  let clientDir: string;
  beforeAll(async () => {
    clientDir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-client-'));
    await mkdir(path.join(clientDir, 'assets'));
    await writeFile(path.join(clientDir, 'index.html'), `<!doctype html><title>Eventmatch</title><script>${INLINE_SCRIPT}</script>`);
    await writeFile(path.join(clientDir, 'assets', 'app-1a2b3c.js'), 'console.log(1)');
    await writeFile(path.join(clientDir, 'robots.txt'), 'User-agent: *\nDisallow: /app/\n');
  });
  afterAll(() => rm(clientDir, { recursive: true, force: true }));
  const server = serverPerSuite(() => ({ config: { clientDir } }));

  it('answers a deep link with the app, a built file with itself, cached for a year', async () => {
    const page = await fetch(`${server.url}/app/chat/12`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<title>Eventmatch</title>');
    const asset = await fetch(`${server.url}/assets/app-1a2b3c.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await asset.text()).toBe('console.log(1)');
  });

  it('answers a path that is none of the pages with the app and a 404, the pages with a 200', async () => {
    for (const path of ['/no-such-page/', '/e/', '/e/ABC/extra', '/login/again', '/privacy-policy', '//']) {
      const missing = await fetch(`${server.url}${path}`);
      expect(missing.status, path).toBe(404);
      expect(missing.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(await missing.text(), path).toContain('<title>Eventmatch</title>');
    }
    for (const path of ['/', '/login', '/login/', '/register/', '/privacy/', '/forgot-password/', '/verify-email/?token=a.b', '/logout/', '/subscribe/', '/app', '/app/', '/app/anything/at/all', '/e/ABC123', '/e/ABC123/']) {
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
    }
  });

  it('answers a HEAD for a page as its GET, with no body (uptime checks and link previews ask so)', async () => {
    for (const [path, status] of [['/app/chat/12', 200], ['/e/ABC123', 200], ['/no-such-page/', 404]] as const) {
      const head = await fetch(`${server.url}${path}`, { method: 'HEAD' });
      expect(head.status, path).toBe(status);
      expect(head.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(await head.text(), path).toBe('');
    }
    const api = await fetch(`${server.url}/api/no-such-route/`, { method: 'HEAD' });
    expect(api.status).toBe(404);
  });

  it('answers a built file that is not there with a 404, not the app', async () => {
    const missing = await fetch(`${server.url}/assets/app-0ld0ne.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).not.toMatch(/^text\/html/);
    expect(await missing.json()).toEqual({ detail: 'Not found.' });
  });

  it('answers any file that is not there with a 404, and a page whose query holds a dot with the app', async () => {
    for (const file of ['/icons/gone.png', '/favicon.ico', '/sitemap.xml', '/app/chat/12.json']) {
      const missing = await fetch(`${server.url}${file}`);
      expect(missing.status, file).toBe(404);
      expect(await missing.json()).toEqual({ detail: 'Not found.' });
    }
    const robots = await fetch(`${server.url}/robots.txt`);
    expect(robots.status).toBe(200);
    expect(robots.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await robots.text()).toContain('Disallow: /app/');
    const link = await fetch(`${server.url}/reset-password?token=abc.def`);
    expect(link.status).toBe(200);
    expect(await link.text()).toContain('<title>Eventmatch</title>');
  });

  // The page reads its own query; the server stores nothing from it. A link mangled on its way (a
  // NUL, half of a surrogate pair) opens the app, whose page says the link does not work, not a JSON error.
  it('answers a page whose query holds text that could not be stored with the app, an API route with a 400', async () => {
    for (const path of ['/verify-email?token=%00', '/reset-password?token=a%00b', '/app/home/?ref=%00']) {
      const page = await fetch(`${server.url}${path}`);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(await page.text(), path).toContain('<title>Eventmatch</title>');
    }
    const api = await fetch(`${server.url}/api/auth/verify-email/?ref=%00`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"token":"abc"}' });
    expect([api.status, await api.json()]).toEqual([400, { ref: ['Null characters are not allowed.'] }]);
  });

  it('allows the page’s inline script by its hash, in every answer’s policy, and no other inline script', async () => {
    const hash = createHash('sha256').update(INLINE_SCRIPT).digest('base64');
    for (const url of ['/', '/api/users/me/']) {
      const policy = (await fetch(`${server.url}${url}`)).headers.get('content-security-policy') ?? '';
      const scripts = /script-src ([^;]*)/.exec(policy)?.[1]?.split(' ');
      expect(scripts, url).toEqual(["'self'", `'sha256-${hash}'`, 'https://accounts.google.com/gsi/client']);
    }
  });
});
