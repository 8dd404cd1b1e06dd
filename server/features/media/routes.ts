import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { MAX_UPLOAD_BYTES } from '../../../shared/constants';
import { UploadResponse } from '../../../shared/schemas/users';
import { ApiError, PayloadTooLarge, UnsupportedMediaType, ValidationError } from '../../errors';
import { currentUser } from '../../plugins/auth';
import { IMAGE_TOO_LARGE, storeImage, sweepUnusedUploads, UNUSED_UPLOAD_TTL_MS } from './service';

export const NO_FILE = 'No file was submitted.';
export const NOT_A_FILE = 'The submitted data was not a file. Check the encoding type on the form.';

/** The bytes of the multipart field `file`, at most 10 MB; every way a body can be malformed is a 4xx. */
async function readUpload(request: FastifyRequest): Promise<Buffer> {
  try {
    const file = await request.file({ limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } });
    if (!file || file.fieldname !== 'file') throw ValidationError.field('file', NO_FILE);
    const bytes = await file.toBuffer();
    // toBuffer() can miss the limit when busboy marks the stream truncated after its last chunk
    // was read: it then hands back the first 10 MB as if that were the whole file.
    if (file.file.truncated) throw new PayloadTooLarge(IMAGE_TOO_LARGE);
    return bytes;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new PayloadTooLarge(IMAGE_TOO_LARGE);
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) throw new PayloadTooLarge();
    // Busboy's "Unexpected end of form", "Boundary not found" and the like: the client's body is broken.
    request.log.info({ err: error }, 'malformed multipart body');
    throw ValidationError.field('file', NOT_A_FILE);
  }
}

const UPLOAD_SWEEP_MS = 60 * 60 * 1000;
const FIRST_UPLOAD_SWEEP_MS = 60 * 1000;

const mediaRoutes: FastifyPluginAsyncZod = async (app) => {
  // Uploads no profile took up go after a day: once an hour, and a minute after start so that an
  // instance restarted often still sweeps. Every instance sweeps; the delete is the same whichever runs it.
  const sweep = () => {
    sweepUnusedUploads(app.db, app.media, new Date(Date.now() - UNUSED_UPLOAD_TTL_MS))
      .then((keys) => keys.length > 0 && app.log.info({ count: keys.length }, 'unused uploads swept'))
      .catch((error: unknown) => app.log.warn({ err: error }, 'upload sweep failed'));
  };
  const first = setTimeout(sweep, FIRST_UPLOAD_SWEEP_MS).unref();
  const timer = setInterval(sweep, UPLOAD_SWEEP_MS).unref();
  app.addHook('onClose', () => {
    clearTimeout(first);
    clearInterval(timer);
  });

  app.post('/api/uploads/', {
    schema: { response: { 201: UploadResponse } },
    onRequest: [app.authenticate, app.limits.hook('upload')],
    handler: async (request, reply) => {
      if (!request.isMultipart()) throw new UnsupportedMediaType('Send the image as multipart/form-data, field "file".');
      const bytes = await readUpload(request);
      const url = await storeImage(app.db, app.media, currentUser(request).id, bytes);
      return reply.code(201).send({ url });
    },
  });
};

export default mediaRoutes;
