import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import fp from 'fastify-plugin';
import { languageOf, renderServerMessage, serverText } from '../../shared/i18n/server-messages';
import { isPage } from '../../shared/pages';
import { methodNotAllowed, ROUTE_METHODS } from '../errors';

const API_PREFIXES = ['/api/', '/media/', '/socket.io/'];
/**
 * Built files, never a page: a missing one is a 404, not `index.html` (a phone still running an old
 * build asks for the chunks it knew; HTML under a script's name would fail as a syntax error).
 */
const ASSET_PREFIX = '/assets/';
/**
 * A path whose last part names a file (`/icons/x.png`, `/favicon.ico`): when it is not there it is a
 * 404 too. The app's own pages never end in an extension, and a crawler asking for a file (a sitemap,
 * a robots.txt) must not be handed the app as if it were that file.
 */
const FILE_NAME = /\/[^/]*\.[a-z0-9]+$/i;

/** The built client's `index.html`, read once at start; null when there is no build. */
export function readIndexHtml(clientDir: string | null): Buffer | null {
  const indexPath = clientDir ? path.join(clientDir, 'index.html') : null;
  return indexPath && existsSync(indexPath) ? readFileSync(indexPath) : null;
}

/**
 * The Content-Security-Policy sources of the page's inline scripts (the theme's, which must run
 * before the first paint), each as its hash: `'sha256-…'`. Taken from the page as built, so an edit of
 * a script allows the new one and no other.
 */
export function inlineScriptSources(indexHtml: Buffer | null): string[] {
  if (!indexHtml) return [];
  return [...indexHtml.toString('utf8').matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    ([, body]) => `'sha256-${createHash('sha256').update(body!).digest('base64')}'`,
  );
}

/**
 * The built single-page client: hashed assets cached for a year, `index.html` for every other
 * GET (or HEAD) that is not an API path or a file, so that deep links such as /app/chat/12 load the app; with a
 * 404 where the path is none of the client's pages (`shared/pages.ts`), whose not-found page it shows.
 */
export default fp(
  async (app, opts: { clientDir: string | null; indexHtml: Buffer | null }) => {
    const root = opts.clientDir;
    const { indexHtml } = opts;

    if (root && indexHtml) {
      await app.register(fastifyStatic, {
        root,
        prefix: '/',
        wildcard: false,
        decorateReply: false,
        index: false,
        cacheControl: false,
        // The client build writes .br/.gz beside each asset (vite.config.ts); serve those when accepted.
        preCompressed: true,
        setHeaders(reply, filePath) {
          const hashed = filePath.includes(`${path.sep}assets${path.sep}`);
          reply.header('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
        },
      });
    }

    app.setNotFoundHandler((request, reply) => {
      const url = request.url.split('?')[0]!;
      // A HEAD as its GET (an uptime check, a link preview): Node sends the headers and no body.
      const wantsPage =
        (request.method === 'GET' || request.method === 'HEAD') &&
        !request.url.startsWith(ASSET_PREFIX) &&
        !API_PREFIXES.some((prefix) => request.url.startsWith(prefix)) &&
        !FILE_NAME.test(url);
      if (!wantsPage) {
        const language = languageOf(request.headers['accept-language']);
        // A path that exists under other methods is a 405 naming them, as DRF answers.
        const allowed = request.url.startsWith('/api/')
          ? ROUTE_METHODS.filter((method) => app.findRoute({ method, url }) !== null)
          : [];
        if (allowed.length > 0) {
          const refusal = methodNotAllowed(request.method, allowed);
          return reply.code(refusal.statusCode).headers(refusal.headers).send(refusal.render(language));
        }
        return reply.code(404).send({ detail: renderServerMessage(serverText('not_found'), language) });
      }
      if (!indexHtml) {
        return reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .send('The client is not built yet: run `npm start` (or `npm run build`).');
      }
      // The app either way: on a path that is none of its pages, it says so, and the status with it.
      return reply
        .code(isPage(url) ? 200 : 404)
        .header('Cache-Control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(indexHtml);
    });
  },
  { name: 'client' },
);
