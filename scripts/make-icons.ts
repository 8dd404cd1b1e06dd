/**
 * The app's icons for a phone's home screen, drawn from one heart: `npx tsx scripts/make-icons.ts`
 * writes them to client/public/icons/ (committed; the web app manifest and index.html name them), and
 * client/public/favicon.ico, which browsers, bookmarks and link previews ask for whatever a page names.
 * Run it again after changing the drawing.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';

const PUBLIC = path.resolve(import.meta.dirname, '../client/public');
const OUT = path.join(PUBLIC, 'icons');
/** The like button's gradient (client/styles.css: --accent to --warm) and the deck's heart. */
const HEART = 'M20.8 4.6a5.5 5.5 0 0 0-7.8 0L12 5.7l-1-1.1a5.5 5.5 0 0 0-7.8 7.8l1 1.1L12 21l7.8-7.5 1-1.1a5.5 5.5 0 0 0 0-7.8z';

/**
 * A square of `size` px. Rounded, for launchers that show an icon as it is; full bleed with the
 * heart inside the middle 60 %, for those that cut their own shape (maskable, iOS).
 */
function drawing(size: number, shape: 'rounded' | 'full') {
  const heart = size * (shape === 'rounded' ? 0.62 : 0.5);
  const offset = (size - heart) / 2;
  const radius = shape === 'rounded' ? size * 0.22 : 0;
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#be123c"/><stop offset="1" stop-color="#f97316"/></linearGradient></defs>
  <rect width="${size}" height="${size}" rx="${radius}" fill="url(#g)"/>
  <g transform="translate(${offset} ${offset + heart * 0.03}) scale(${heart / 24})"><path d="${HEART}" fill="#fff"/></g>
</svg>`);
}

const icons = [
  { file: 'icon-192.png', size: 192, shape: 'rounded' },
  { file: 'icon-512.png', size: 512, shape: 'rounded' },
  { file: 'icon-maskable-512.png', size: 512, shape: 'full' },
  { file: 'apple-touch-icon.png', size: 180, shape: 'full' },
] as const;

await mkdir(OUT, { recursive: true });
for (const { file, size, shape } of icons) {
  await sharp(drawing(size, shape)).png({ compressionLevel: 9, palette: true }).toFile(path.join(OUT, file));
  console.log(`${file} ${size}×${size}`);
}

/**
 * An .ico of PNG images (every browser of the last decade reads them): a 6-byte header, a 16-byte entry
 * per image (its size, 32 bits a pixel, its length and offset), then the images. Too small a format to
 * add a dependency for.
 */
function ico(images: Array<{ size: number; png: Buffer }>) {
  const header = Buffer.alloc(6 + 16 * images.length);
  header.writeUInt16LE(1, 2); // an icon, not a cursor
  header.writeUInt16LE(images.length, 4);
  let offset = header.length;
  images.forEach(({ size, png }, i) => {
    const entry = 6 + 16 * i;
    header.writeUInt8(size % 256, entry); // 0 means 256
    header.writeUInt8(size % 256, entry + 1);
    header.writeUInt16LE(1, entry + 4); // colour planes
    header.writeUInt16LE(32, entry + 6); // bits per pixel
    header.writeUInt32LE(png.length, entry + 8);
    header.writeUInt32LE(offset, entry + 12);
    offset += png.length;
  });
  return Buffer.concat([header, ...images.map(({ png }) => png)]);
}

const FAVICON_SIZES = [16, 32, 48];
const favicons = await Promise.all(
  FAVICON_SIZES.map(async (size) => ({ size, png: await sharp(drawing(size, 'rounded')).png({ compressionLevel: 9 }).toBuffer() })),
);
await writeFile(path.join(PUBLIC, 'favicon.ico'), ico(favicons));
console.log(`favicon.ico ${FAVICON_SIZES.map((size) => `${size}×${size}`).join(', ')}`);
