import { dirname } from 'node:path';
import { DEFAULT_FILE_LIMITS, readTrajectoryFile } from '@osharm/task-schema/trajectory';

/** How screenshots are encoded for the judge. */
export interface ImageOptions {
  /** Scale down (keeping the aspect ratio) so the longer side is at most this many pixels. */
  readonly maxSide?: number;
  /** Re-encode as this format. @default keep the file's format (PNG) */
  readonly format?: 'png' | 'jpeg' | 'webp';
  /** Quality for jpeg / webp, 1–100. @default 80 */
  readonly quality?: number;
  /** OpenAI image detail. @default 'high' (upstream) */
  readonly detail?: 'high' | 'low' | 'auto';
  /** Refuse image files larger than this many bytes. @default 32 MiB (`DEFAULT_FILE_LIMITS.maxImageBytes`) */
  readonly maxFileBytes?: number;
}

/** An image ready to send: base64 data and its media type. */
export interface EncodedImage {
  readonly mediaType: 'image/png' | 'image/jpeg' | 'image/webp';
  readonly base64: string;
}

/**
 * Reads an image file and, when options ask for it, resizes or recompresses it with sharp. With no
 * options the bytes are sent as stored, which is what upstream does (PNG, detail `high`).
 * The file is read through task-schema's trajectory file reader: a symlink, a FIFO or device, a
 * file over `maxFileBytes` or one that is not an image by content is refused, never read.
 * @throws {UnsafeFileError} (from `@osharm/task-schema`) for a refused file.
 */
export async function encodeImage(path: string, options: ImageOptions = {}): Promise<EncodedImage> {
  const bytes = await readTrajectoryFile(path, {
    within: dirname(path),
    maxBytes: options.maxFileBytes ?? DEFAULT_FILE_LIMITS.maxImageBytes,
    kind: 'image',
  });
  if (options.maxSide === undefined && options.format === undefined) {
    return { mediaType: sniffMediaType(bytes), base64: bytes.toString('base64') };
  }
  // sharp (a 19 MB native module) is loaded only here, when resizing or recompressing is asked
  // for: importing @osharm/judge does not load it.
  const { default: sharp } = await import('sharp');
  let pipeline = sharp(bytes);
  if (options.maxSide !== undefined) {
    pipeline = pipeline.resize({
      width: options.maxSide,
      height: options.maxSide,
      fit: 'inside',
      withoutEnlargement: true,
    });
  }
  const format = options.format ?? 'png';
  const quality = options.quality ?? 80;
  pipeline =
    format === 'jpeg'
      ? pipeline.jpeg({ quality })
      : format === 'webp'
        ? pipeline.webp({ quality })
        : pipeline.png();
  const out = await pipeline.toBuffer();
  return {
    mediaType: `image/${format}` as EncodedImage['mediaType'],
    base64: out.toString('base64'),
  };
}

function sniffMediaType(bytes: Buffer): EncodedImage['mediaType'] {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg';
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  ) {
    return 'image/webp';
  }
  return 'image/png';
}
