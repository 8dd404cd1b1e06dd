import path from 'node:path';
import type { Config } from '../../config';
import { localMediaStore, type MediaStore } from './store';

/** The stores a configuration names, the server's and the admin command's alike. */
export interface MediaStores {
  /** Profile photos. */
  media: MediaStore;
  /** Reports' photo copies, kept for moderators. */
  evidence: MediaStore;
  /** With a bucket: whether it answers (the server reports it in /readyz). */
  bucketAnswers: (() => Promise<void>) | null;
  close: () => Promise<void>;
}

/**
 * The S3-compatible bucket when one is configured, loaded only then (the AWS SDK is a large module tree
 * that one machine never needs); else DATA_DIR's `media` and `evidence` folders.
 */
export async function openMediaStores(config: Pick<Config, 's3' | 'dataDir'>): Promise<MediaStores> {
  if (!config.s3) {
    return {
      media: localMediaStore(path.join(config.dataDir, 'media')),
      evidence: localMediaStore(path.join(config.dataDir, 'evidence')),
      bucketAnswers: null,
      close: async () => {},
    };
  }
  const { bucketAnswers, createS3Client, s3MediaStore } = await import('./s3-store');
  const s3 = createS3Client(config.s3);
  return {
    media: s3MediaStore(s3, config.s3.bucket, 'media/'),
    evidence: s3MediaStore(s3, config.s3.bucket, 'evidence/'),
    bucketAnswers: bucketAnswers(s3, config.s3.bucket),
    close: async () => s3.destroy(),
  };
}
