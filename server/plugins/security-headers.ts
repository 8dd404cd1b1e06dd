import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * helmet's security headers on every response, its middleware built once. @fastify/helmet builds it
 * again for every request (`helmet(options)` in its onRequest hook, parsing the CSP each time): 3–5 %
 * of the message history endpoint's CPU under load (bench/README.md). The headers are the same.
 */
export default fp(
  async (app, options: HelmetOptions) => {
    const setHeaders = helmet(options);
    app.addHook('onRequest', (request, reply, done) =>
      setHeaders(request.raw, reply.raw, (error) => done(error as Error | undefined)),
    );
  },
  { name: 'security-headers' },
);
