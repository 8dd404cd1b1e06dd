import type { FastifyRequest } from 'fastify';
import { type Language, LANGUAGES } from '../../shared/constants';

/**
 * The app language a request was made in: the client sends its chosen language as the first tag of
 * `Accept-Language` (client/lib/api.ts); a browser's own header names the reader's languages. Null
 * when no tag names one of ours.
 */
export function requestLanguage(request: FastifyRequest): Language | null {
  const header = request.headers['accept-language'];
  if (typeof header !== 'string') return null;
  for (const part of header.split(',').slice(0, 10)) {
    const primary = part.split(';')[0]?.trim().toLowerCase().split('-')[0];
    if (primary && (LANGUAGES as readonly string[]).includes(primary)) return primary as Language;
  }
  return null;
}
