import { createCipheriv, createDecipheriv, hkdfSync, randomFillSync } from 'node:crypto';

/**
 * Authenticated encryption (AES-256-GCM) of small values the server hands out and later takes back:
 * list cursors, join passes. A sealed value reveals nothing of what it holds, and any change to it,
 * or a value sealed for another purpose or by another deployment, opens to null.
 */
export interface Sealer {
  seal(purpose: string, value: unknown, options?: { expiresAt?: Date }): string;
  /** The value sealed for this purpose, or null: tampered, foreign, expired or not ours at all. */
  open(purpose: string, sealed: string): unknown;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Far more than any value we seal; a longer string is refused before any work is done on it. */
const MAX_SEALED_CHARS = 2048;

interface Envelope {
  v: unknown;
  /** Expiry, epoch milliseconds. */
  x?: number;
}

/**
 * Random IVs, drawn from the system's generator 256 at a time: every page of the deck seals its
 * cursor, and a call to the generator for each 12 bytes cost as much as the encryption (bench/README.md).
 * Each IV is still used once. The slice handed out is only valid until the next call.
 */
function ivSource(): () => Buffer {
  const pool = Buffer.alloc(IV_BYTES * 256);
  let used = pool.length;
  return () => {
    if (used === pool.length) {
      randomFillSync(pool);
      used = 0;
    }
    used += IV_BYTES;
    return pool.subarray(used - IV_BYTES, used);
  };
}

/** One key per purpose, derived from the deployment's secret: a cursor never opens as a join pass. */
export function createSealer(secret: Buffer): Sealer {
  const keys = new Map<string, Buffer>();
  const nextIv = ivSource();
  const keyFor = (purpose: string) => {
    let key = keys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `eventmatch:${purpose}`, 32));
      keys.set(purpose, key);
    }
    return key;
  };

  return {
    seal(purpose, value, options = {}) {
      const envelope: Envelope = { v: value, ...(options.expiresAt ? { x: options.expiresAt.getTime() } : {}) };
      const iv = nextIv(); // used before this returns: the cipher takes a copy, and so does concat
      const cipher = createCipheriv('aes-256-gcm', keyFor(purpose), iv);
      const body = Buffer.concat([cipher.update(JSON.stringify(envelope), 'utf8'), cipher.final()]);
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },

    open(purpose, sealed) {
      if (sealed.length > MAX_SEALED_CHARS || !/^[A-Za-z0-9_-]+$/.test(sealed)) return null;
      const bytes = Buffer.from(sealed, 'base64url');
      if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFor(purpose), bytes.subarray(0, IV_BYTES));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, -TAG_BYTES)), decipher.final()]);
        const envelope = JSON.parse(text.toString('utf8')) as Envelope;
        if (envelope.x !== undefined && envelope.x <= Date.now()) return null;
        return envelope.v;
      } catch {
        return null;
      }
    },
  };
}
