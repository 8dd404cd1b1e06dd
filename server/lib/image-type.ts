/** The formats a photo may be in, named as sharp names them. */
export const ACCEPTED_IMAGE_FORMATS = ['jpeg', 'png', 'gif', 'webp'] as const;
export type AcceptedImageFormat = (typeof ACCEPTED_IMAGE_FORMATS)[number];

const startsWith = (bytes: Buffer, signature: number[] | string, offset = 0) => {
  const expected = typeof signature === 'string' ? Buffer.from(signature, 'latin1') : Buffer.from(signature);
  return bytes.length >= offset + expected.length && bytes.subarray(offset, offset + expected.length).equals(expected);
};

/** Recognised as an image, but not one we take: answered "unsupported" rather than "not an image". */
const OTHER_IMAGE_SIGNATURES: [number[] | string, number][] = [
  ['II*\u0000', 0], // TIFF, little-endian
  ['MM\u0000*', 0], // TIFF, big-endian
  ['BM', 0], // BMP
  ['%PDF', 0],
  ['ftyp', 4], // HEIC, AVIF and other ISO media
  ['8BPS', 0], // Photoshop
  [[0x00, 0x00, 0x01, 0x00], 0], // ICO
  [[0xff, 0x0a], 0], // JPEG XL codestream
];

/**
 * The format of an image, decided by its first bytes only (never by a name or a declared type),
 * before any decoder sees it: `null` when it is no image we know, `'unsupported'` for an image
 * format we refuse (SVG, TIFF, HEIC…), so that those never reach their parsers.
 */
export function sniffImageFormat(bytes: Buffer): AcceptedImageFormat | 'unsupported' | null {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(bytes, 'GIF87a') || startsWith(bytes, 'GIF89a')) return 'gif';
  if (startsWith(bytes, 'RIFF') && startsWith(bytes, 'WEBP', 8)) return 'webp';
  if (OTHER_IMAGE_SIGNATURES.some(([signature, offset]) => startsWith(bytes, signature, offset))) return 'unsupported';
  // SVG and other XML: text that opens with a tag, after an optional BOM and blanks.
  const head = bytes.subarray(0, 512).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (head.startsWith('<')) return 'unsupported';
  return null;
}
