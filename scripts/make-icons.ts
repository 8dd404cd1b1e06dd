/**
 * The app's icons for a phone's home screen, drawn from one heart: `npx tsx scripts/make-icons.ts`
 * writes them to client/public/icons/ (committed; the web app manifest and index.html name them).
 * Run it again after changing the drawing.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';

const OUT = path.resolve(import.meta.dirname, '../client/public/icons');
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
