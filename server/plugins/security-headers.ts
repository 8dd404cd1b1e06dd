import type { IncomingMessage, ServerResponse } from 'node:http';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * helmet's security headers on every response. None of them depends on the request (a CSP nonce would,
 * and there is none), so helmet runs once, at start, and every request is given the headers it set.
 *
 * Running helmet's middleware on every request cost `/healthz` a tenth of its CPU (bench/README.md):
 * thirteen `setHeader` calls on the raw response, each validating, lower-casing and storing its name,
 * after which Node merges Fastify's own headers in one by one. Given to Fastify's reply instead, they
 * go out with its headers in one `writeHead`, validated there once.
 */
export default fp(
  async (app, { headers }: { headers: Record<string, string> }) => {
    app.addHook('onRequest', (request, reply, done) => {
      reply.headers(headers);
      done();
    });
  },
  { name: 'security-headers' },
);

/** The headers helmet sets with these options, by lower-case name, read from a stand-in response. */
export function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const csp = options.contentSecurityPolicy;
  const directives = typeof csp === 'object' ? Object.values(csp.directives ?? {}) : [];
  if (directives.flat().some((value) => typeof value === 'function')) {
    throw new Error('a Content-Security-Policy directive that depends on the request cannot be set once for all');
  }
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string | number) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  let finished = false;
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
    finished = true;
  });
  if (!finished) throw new Error('helmet did not set its headers at once');
  return headers;
}
