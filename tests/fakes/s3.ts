/**
 * A local fake of the S3 object API, path-style (`/<bucket>/<key>`): PUT, GET, HEAD and DELETE of an
 * object, HEAD of the bucket and ListObjectsV2 (`GET /<bucket>?list-type=2`, S3's XML answer and
 * paging), with S3's XML errors. The real AWS SDK talks to it through `S3_ENDPOINT`; it checks that
 * every request is signed (SigV4) with the expected access key, and can be made to fail as an
 * unreachable bucket does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StoredObject {
  body: Buffer;
  contentType: string | undefined;
  cacheControl: string | undefined;
  /** Set by PUT; a test may set it back to age an object. */
  lastModified: Date;
}

export interface FakeS3 {
  url: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Every object, by its key in the bucket (`media/<key>`, `evidence/<key>`). */
  objects: Map<string, StoredObject>;
  /**
   * Every request, `METHOD key` (the bucket's own requests have an empty key, followed by their query
   * if they have one: `GET ?list-type=2&prefix=media%2F`).
   */
  requests: string[];
  /** The most objects one ListObjectsV2 page holds: 1,000, as S3's; a test may make it smaller to page. */
  listPageSize: number;
  /** While true, every request is answered 503 SlowDown, as a struggling bucket does. */
  failing: boolean;
  close(): Promise<void>;
}

const xmlError = (res: ServerResponse, status: number, code: string, method: string) => {
  res.writeHead(status, { 'content-type': 'application/xml' });
  // HEAD answers carry no body, and the SDK reads their status alone.
  res.end(method === 'HEAD' ? undefined : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`);
};

const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

const element = (name: string, value: string | number | boolean) => `<${name}>${escapeXml(String(value))}</${name}>`;

/** S3 lists keys in the binary order of their UTF-8 bytes. */
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * ListObjectsV2's answer, as S3 shapes it: the keys under `prefix` in UTF-8 order after `start-after`
 * or the continuation token, at most `max-keys` (and the page size) of them, those with `delimiter`
 * after the prefix rolled up into CommonPrefixes (each counting as one). The continuation token is
 * opaque to the client; here the last key or common prefix returned. Null: a bad argument.
 */
function listObjectsV2(objects: Map<string, StoredObject>, bucket: string, query: URLSearchParams, pageSize: number): string | null {
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter') ?? '';
  const startAfter = query.get('start-after') ?? '';
  const token = query.get('continuation-token');
  const maxKeysText = query.get('max-keys');
  const maxKeys = maxKeysText === null ? 1000 : Number(maxKeysText);
  if (!Number.isInteger(maxKeys) || maxKeys < 0) return null;
  let after = startAfter;
  if (token !== null) {
    after = Buffer.from(token, 'base64url').toString();
    if (!token || Buffer.from(after).toString('base64url') !== token) return null;
  }
  const limit = Math.min(maxKeys, pageSize);

  const contents: Array<[string, StoredObject]> = [];
  const commonPrefixes: string[] = [];
  let isTruncated = false;
  let last = '';
  for (const key of [...objects.keys()].filter((k) => k.startsWith(prefix)).sort(byUtf8)) {
    if (after && (byUtf8(key, after) <= 0 || (delimiter && after.endsWith(delimiter) && key.startsWith(after)))) continue;
    const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
    const rolled = cut >= 0 ? key.slice(0, cut + delimiter.length) : null;
    if (rolled !== null && rolled === commonPrefixes.at(-1)) continue;
    if (contents.length + commonPrefixes.length >= limit) {
      isTruncated = true;
      break;
    }
    if (rolled !== null) commonPrefixes.push(rolled);
    else contents.push([key, objects.get(key)!]);
    last = rolled ?? key;
  }

  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
    element('Name', bucket),
    element('Prefix', prefix),
    delimiter ? element('Delimiter', delimiter) : '',
    element('MaxKeys', maxKeys),
    element('KeyCount', contents.length + commonPrefixes.length),
    element('IsTruncated', isTruncated),
    token !== null ? element('ContinuationToken', token) : '',
    isTruncated ? element('NextContinuationToken', Buffer.from(last).toString('base64url')) : '',
    startAfter ? element('StartAfter', startAfter) : '',
    ...contents.map(
      ([key, object]) =>
        `<Contents>${element('Key', key)}${element('LastModified', object.lastModified.toISOString())}` +
        `${element('ETag', `"${object.body.length}"`)}${element('Size', object.body.length)}` +
        `${element('StorageClass', 'STANDARD')}</Contents>`,
    ),
    ...commonPrefixes.map((common) => `<CommonPrefixes>${element('Prefix', common)}</CommonPrefixes>`),
    '</ListBucketResult>',
  ].join('');
}

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
    listPageSize: 1000,
  };

  const server = createServer(async (req, res) => {
    const method = req.method ?? 'GET';
    const { pathname, search, searchParams } = new URL(req.url ?? '/', 'http://fake.invalid');
    const [, first = '', ...rest] = pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    const body = await readBody(req);
    state.requests.push(`${method} ${key || search}`);

    if (state.failing) return xmlError(res, 503, 'SlowDown', method);
    const authorization = req.headers.authorization ?? '';
    if (!authorization.startsWith(`AWS4-HMAC-SHA256 Credential=${accessKeyId}/`)) return xmlError(res, 403, 'AccessDenied', method);
    if (decodeURIComponent(first) !== bucket) return xmlError(res, 404, 'NoSuchBucket', method);

    if (!key) {
      if (method === 'HEAD') return res.writeHead(200).end();
      if (method === 'GET' && searchParams.get('list-type') === '2') {
        // URL-encoded keys in the answer: not done here, and loudly so.
        if (searchParams.has('encoding-type')) return xmlError(res, 501, 'NotImplemented', method);
        const listing = listObjectsV2(state.objects, bucket, searchParams, state.listPageSize);
        if (listing === null) return xmlError(res, 400, 'InvalidArgument', method);
        res.writeHead(200, { 'content-type': 'application/xml' });
        return res.end(listing);
      }
      return xmlError(res, 405, 'MethodNotAllowed', method);
    }
    const stored = state.objects.get(key);
    switch (method) {
      case 'PUT':
        state.objects.set(key, {
          body,
          contentType: req.headers['content-type'],
          cacheControl: req.headers['cache-control'],
          lastModified: new Date(),
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
