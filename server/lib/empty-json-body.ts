import type { FastifyInstance } from 'fastify';

/**
 * A JSON content type with nothing after it is no body at all, not malformed JSON: clients that name
 * JSON on every request send it to a POST or a DELETE that takes none (a block, a logout). Such a route
 * answers as it would without the header, and so does one that needs a body (a 400).
 */
export function acceptEmptyJsonBodies(app: FastifyInstance) {
  // Not async: every request passes here.
  app.addHook('onRequest', (request, _reply, done) => {
    const headers = request.raw.headers;
    const type = headers['content-type'];
    const noBody = headers['transfer-encoding'] === undefined && (headers['content-length'] ?? '0') === '0';
    if (type !== undefined && noBody && /^application\/json\s*(;|$)/i.test(type)) delete headers['content-type'];
    done();
  });
}
