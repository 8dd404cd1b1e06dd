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

export async function imageDataUri(format: 'png' | 'jpeg' = 'png') {
  return `data:image/${format};base64,${(await imageBytes(format)).toString('base64')}`;
}
