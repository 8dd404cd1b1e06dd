import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { Config } from '../../config';
import { ServiceUnavailable } from '../../errors';
import { serverText } from '../../../shared/i18n/server-messages';
import { MEDIA_CACHE_CONTROL, mediaKeyOf, type MediaStore, mediaUrl } from './store';

export type S3Settings = NonNullable<Config['s3']>;

/** The bucket did not answer, or refused us: not the user's doing, and worth trying again. */
export class MediaUnavailable extends ServiceUnavailable {
  constructor(options?: { cause: unknown }) {
    super(serverText('media_unavailable'));
    // Logged with the 503, so that an operator sees what the bucket said.
    if (options) this.cause = options.cause;
  }
}

/** The one client of a process, shared by the photos' store and the evidence's. */
export function createS3Client(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    // Unset: the SDK's own chain (AWS_ACCESS_KEY_ID and friends, a profile, an instance role).
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    // Checksums only where S3 requires them: several S3-compatible stores refuse the headers that
    // newer SDKs add to every upload by default.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A photo is small: a bucket that has not answered in 10 s is not going to, and the person is waiting.
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 10_000 },
  });
}

const statusOf = (error: unknown) => (error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined);

/**
 * Runs one call to the bucket. A 404 is `ifMissing`'s answer where the caller gives one; anything
 * else that fails becomes a 503 to retry.
 */
async function callBucket<T>(call: () => Promise<T>, ifMissing?: () => T): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (ifMissing && statusOf(error) === 404) return ifMissing();
    throw new MediaUnavailable({ cause: error });
  }
}

/**
 * Photos (or report evidence) in an S3-compatible bucket, under `prefix` (`media/`, `evidence/`).
 * Objects are written once under a fresh key and never rewritten; the app serves them itself.
 */
export function s3MediaStore(client: S3Client, bucket: string, prefix: string): MediaStore {
  const Key = (key: string) => `${prefix}${key}`;
  return {
    async put(key, data) {
      await callBucket(() =>
        client.send(
          new PutObjectCommand({ Bucket: bucket, Key: Key(key), Body: data, ContentType: 'image/webp', CacheControl: MEDIA_CACHE_CONTROL }),
        ),
      );
    },
    async read(key) {
      return callBucket(async () => {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: Key(key) }));
        return object.Body ? Buffer.from(await object.Body.transformToByteArray()) : Buffer.alloc(0);
      }, () => null);
    },
    async exists(key) {
      return callBucket(
        () => client.send(new HeadObjectCommand({ Bucket: bucket, Key: Key(key) })).then(() => true),
        () => false,
      );
    },
    async remove(key) {
      // S3 answers 204 for a key that is not there; some compatible stores answer 404.
      await callBucket(
        () => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: Key(key) })).then(() => {}),
        () => {},
      );
    },
    async *list() {
      // A page of at most 1,000 objects per call (S3's own limit), in key order; the next page starts
      // after the token the last one gave.
      let ContinuationToken: string | undefined;
      do {
        const page = await callBucket(() =>
          client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(ContinuationToken ? { ContinuationToken } : {}) })),
        );
        for (const object of page.Contents ?? []) {
          if (!object.Key?.startsWith(prefix) || !object.LastModified) continue;
          yield { key: object.Key.slice(prefix.length), lastModified: object.LastModified };
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
    url: mediaUrl,
    keyOf: mediaKeyOf,
  };
}

/** `/readyz`'s check: the bucket answers and lets us in. */
export const bucketAnswers = (client: S3Client, bucket: string) => async () => {
  await client.send(new HeadBucketCommand({ Bucket: bucket }));
};
