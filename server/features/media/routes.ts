import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { MAX_UPLOAD_BYTES } from '../../../shared/constants';
import { UploadResponse } from '../../../shared/schemas/users';
import { PayloadTooLarge, UnsupportedMediaType, ValidationError } from '../../errors';
import { currentUser } from '../../plugins/auth';
import { IMAGE_TOO_LARGE, storeImage } from './service';

const mediaRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/api/uploads/', {
    schema: { response: { 201: UploadResponse } },
    onRequest: app.authenticate,
    handler: async (request, reply) => {
      if (!request.isMultipart()) throw new UnsupportedMediaType('Send the image as multipart/form-data, field "file".');
      const file = await request.file({ limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } });
      if (!file || file.fieldname !== 'file') throw ValidationError.field('file', 'No file was submitted.');
      let bytes: Buffer;
      try {
        bytes = await file.toBuffer();
      } catch (error) {
        if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new PayloadTooLarge(IMAGE_TOO_LARGE);
        throw error;
      }
      // toBuffer() can miss the limit when busboy marks the stream truncated after its last chunk
      // was read: it then hands back the first 10 MB as if that were the whole file.
      if (file.file.truncated) throw new PayloadTooLarge(IMAGE_TOO_LARGE);
      const url = await storeImage(app.db, app.media, currentUser(request).id, bytes);
      return reply.code(201).send({ url });
    },
  });
};

export default mediaRoutes;
