import sharp from 'sharp';

/** A small solid-colour image, made locally. */
export function imageBytes(
  format: 'png' | 'jpeg' | 'gif' | 'webp' = 'png',
  options: { width?: number; height?: number; color?: string } = {},
) {
  const { width = 64, height = 48, color = '#e11d48' } = options;
  return sharp({ create: { width, height, channels: 3, background: color } })
    .toFormat(format)
    .toBuffer();
}

/** `imageBytes` as a data URI; another colour makes another photo (a profile refuses one photo twice). */
export async function imageDataUri(format: 'png' | 'jpeg' = 'png', options: Parameters<typeof imageBytes>[1] = {}) {
  return `data:image/${format};base64,${(await imageBytes(format, options)).toString('base64')}`;
}
