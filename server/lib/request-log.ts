import type { FastifyRequest, FastifyServerOptions } from 'fastify';

/**
 * The secrets a link carries in its query: an e-mail link's `token` (a password reset is an account
 * for whoever holds it, for an hour) and the door QR's `t`. Opening the link asks the server for the
 * page, and Fastify logs every request's URL: these values are hidden there.
 */
const SECRET_PARAMETERS = /([?&](?:token|t)=)[^&#]*/gi;

export const urlForLog = (url: string) => (url.includes('?') ? url.replace(SECRET_PARAMETERS, '$1[hidden]') : url);

/** Fastify's own request serializer (`req` on "incoming request" lines), the URL's secrets hidden. */
export function requestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: urlForLog(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** The logger's options with `requestForLog` as its request serializer (none for no logger). */
export function withRequestForLog(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return logger;
  const options = logger === true ? {} : logger;
  return { ...options, serializers: { ...options.serializers, req: requestForLog } };
}
