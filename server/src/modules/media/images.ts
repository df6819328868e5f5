// An uploaded image, checked before it is stored: its type is what its bytes decode as (sharp reads the header;
// the name and the Content-Type the browser sent are not trusted), one of PNG, JPEG, WebP and GIF (never SVG: it
// can carry script), within the size allowed. A refusal names the reason in the operator's language.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { AppError } from '../../lib/errors.ts';
import { CONTENT_TYPES } from './store.ts';

export const IMAGE_KINDS = ['logo', 'banner'] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];
/** The largest file per kind, in bytes. */
export const IMAGE_MAX_BYTES: Record<ImageKind, number> = { logo: 1024 * 1024, banner: 3 * 1024 * 1024 };
const MAX_PIXELS = 40_000_000;
const FORMATS: Record<string, keyof typeof CONTENT_TYPES> = { png: 'png', jpeg: 'jpg', webp: 'webp', gif: 'gif' };

export interface CheckedImage {
  ext: keyof typeof CONTENT_TYPES;
  contentType: string;
  width: number;
  height: number;
  /** A content digest: the stored key changes when the image does (served as immutable). */
  digest: string;
}

export async function checkImage(bytes: Uint8Array, kind: ImageKind): Promise<CheckedImage> {
  const max = IMAGE_MAX_BYTES[kind];
  if (bytes.length > max) throw new AppError(413, 'ops.error.imageTooLarge', { max: `${Math.round(max / 1024)} KB` });
  const meta = await sharp(bytes, { limitInputPixels: MAX_PIXELS })
    .metadata()
    .catch(() => undefined);
  const ext = meta?.format ? FORMATS[meta.format] : undefined;
  if (!meta || !ext || !meta.width || !meta.height) throw new AppError(400, 'ops.error.notImage');
  return {
    ext,
    contentType: CONTENT_TYPES[ext]!,
    width: meta.width,
    height: meta.height,
    digest: createHash('sha256').update(bytes).digest('hex').slice(0, 20),
  };
}
