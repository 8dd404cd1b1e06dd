import type { FastifyRequest } from 'fastify';
import type { Language } from '../../shared/constants';
import { preferredLanguage } from '../../shared/i18n/server-messages';

/**
 * The app language a request was made in: the client sends its chosen language as the first tag of
 * `Accept-Language` (client/lib/api.ts); a browser's own header names the reader's languages. Read
 * as the answer's language is read, so an account's e-mails and the answers agree. Null when no tag
 * names one of ours.
 */
export function requestLanguage(request: FastifyRequest): Language | null {
  return preferredLanguage(request.headers['accept-language']);
}
