// An image made fit to send to a model: decoded with sharp (libvips) under a pixel limit, so a
// "decompression bomb" (a 20,000 × 20,000 PNG of a few KB) is refused from its header before any
// pixel is decoded; the first frame of an animation; turned upright (EXIF); downscaled to a long
// side of at most 2048 px; re-encoded as JPEG (transparency on white) or WebP.
import { MediaError } from './media-error.ts';

export interface ImageLimits {
  /** Long side of the result, in pixels. */
  maxSide: number;
  /** Images with more pixels than this (width × height) are refused before decoding. */
  maxInputPixels: number;
  format: 'jpeg' | 'webp';
}

export const IMAGE_LIMITS: ImageLimits = { maxSide: 2048, maxInputPixels: 40_000_000, format: 'jpeg' };

export interface PreparedImage {
  bytes: Buffer;
  mime: 'image/jpeg' | 'image/webp';
  ext: 'jpg' | 'webp';
  width: number;
  height: number;
  /** The source had several frames (an animation, a sticker); only the first is kept. */
  animated: boolean;
}

type Sharp = typeof import('sharp').default;
let loaded: Promise<Sharp> | undefined;

/** sharp loads with the first image, so a bot that never sees one does not carry libvips. */
function sharpModule(): Promise<Sharp> {
  loaded ??= import('sharp').then((module) => {
    const sharp = module.default;
    // Nothing is kept between images: a bot's memory should not grow with what people post.
    sharp.cache(false);
    return sharp;
  });
  return loaded;
}

export async function prepareImage(input: Buffer, limits: ImageLimits = IMAGE_LIMITS): Promise<PreparedImage> {
  const sharp = await sharpModule();
  // Only the first frame (pages: 1); failOn 'error' lets a slightly damaged JPEG through, as viewers do.
  const options = { limitInputPixels: limits.maxInputPixels, pages: 1, failOn: 'error', sequentialRead: true } as const;
  let meta: import('sharp').Metadata;
  try {
    // The header alone (no pixel is decoded here), to tell the size of what is refused.
    meta = await sharp(input, { ...options, limitInputPixels: false }).metadata();
  } catch (error) {
    throw new MediaError('unreadable-image', `sharp could not read the image: ${(error as Error).message}`, { cause: error });
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (width * height > limits.maxInputPixels) {
    throw new MediaError('too-many-pixels', `${width}×${height} is over the limit of ${limits.maxInputPixels} pixels`, {
      detail: `${width}×${height}`,
    });
  }
  try {
    let pipeline = sharp(input, options)
      .rotate()
      .resize({ width: limits.maxSide, height: limits.maxSide, fit: 'inside', withoutEnlargement: true });
    if (limits.format === 'jpeg') pipeline = pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: 82 });
    else pipeline = pipeline.webp({ quality: 80 });
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    return {
      bytes: data,
      mime: limits.format === 'jpeg' ? 'image/jpeg' : 'image/webp',
      ext: limits.format === 'jpeg' ? 'jpg' : 'webp',
      width: info.width,
      height: info.height,
      animated: (meta.pages ?? 1) > 1,
    };
  } catch (error) {
    const message = (error as Error).message;
    if (/pixel limit/i.test(message)) throw new MediaError('too-many-pixels', message, { cause: error, detail: `${width}×${height}` });
    throw new MediaError('unreadable-image', `sharp could not convert the image: ${message}`, { cause: error });
  }
}
