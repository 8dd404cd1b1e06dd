/**
 * A local fake of the S3 object API, path-style (`/<bucket>/<key>`): PUT, GET, HEAD and DELETE of an
 * object and HEAD of the bucket, with S3's XML errors. The real AWS SDK talks to it through
 * `S3_ENDPOINT`; it checks that every request is signed (SigV4) with the expected access key, and can
 * be made to fail as an unreachable bucket does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StoredObject {
  body: Buffer;
  contentType: string | undefined;
  cacheControl: string | undefined;
}

export interface FakeS3 {
  url: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Every object, by its key in the bucket (`media/<key>`, `evidence/<key>`). */
  objects: Map<string, StoredObject>;
  /** Every request, `METHOD key` (the bucket's own requests have an empty key). */
  requests: string[];
  /** While true, every request is answered 503 SlowDown, as a struggling bucket does. */
  failing: boolean;
  close(): Promise<void>;
}

const xmlError = (res: ServerResponse, status: number, code: string, method: string) => {
  res.writeHead(status, { 'content-type': 'application/xml' });
  // HEAD answers carry no body, and the SDK reads their status alone.
  res.end(method === 'HEAD' ? undefined : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`);
};

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeS3(bucket = 'party-photos'): Promise<FakeS3> {
  const accessKeyId = 'AKIAFAKES3TEST';
  const state: Omit<FakeS3, 'url' | 'close'> = {
    bucket,
    accessKeyId,
    secretAccessKey: 'fake-s3-secret',
    objects: new Map(),
    requests: [],
    failing: false,
  };

  const server = createServer(async (req, res) => {
    const method = req.method ?? 'GET';
    const { pathname } = new URL(req.url ?? '/', 'http://fake.invalid');
    const [, first = '', ...rest] = pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    const body = await readBody(req);
    state.requests.push(`${method} ${key}`);

    if (state.failing) return xmlError(res, 503, 'SlowDown', method);
    const authorization = req.headers.authorization ?? '';
    if (!authorization.startsWith(`AWS4-HMAC-SHA256 Credential=${accessKeyId}/`)) return xmlError(res, 403, 'AccessDenied', method);
    if (decodeURIComponent(first) !== bucket) return xmlError(res, 404, 'NoSuchBucket', method);

    if (!key) {
      if (method === 'HEAD') return res.writeHead(200).end();
      return xmlError(res, 405, 'MethodNotAllowed', method);
    }
    const stored = state.objects.get(key);
    switch (method) {
      case 'PUT':
        state.objects.set(key, {
          body,
          contentType: req.headers['content-type'],
          cacheControl: req.headers['cache-control'],
        });
        return res.writeHead(200, { etag: `"${body.length}"` }).end();
      case 'GET':
      case 'HEAD':
        if (!stored) return xmlError(res, 404, 'NoSuchKey', method);
        res.writeHead(200, {
          'content-type': stored.contentType ?? 'application/octet-stream',
          'content-length': stored.body.length,
          etag: `"${stored.body.length}"`,
        });
        return res.end(method === 'GET' ? stored.body : undefined);
      case 'DELETE':
        state.objects.delete(key);
        return res.writeHead(204).end();
      default:
        return xmlError(res, 405, 'MethodNotAllowed', method);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  });
}
