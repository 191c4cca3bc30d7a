import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import sharp from 'sharp';
import { DEFAULT_FILE_LIMITS, readTrajectoryFile } from '@osharm/task-schema/trajectory';

/** How step thumbnails are made. */
export interface ThumbnailOptions {
  /**
   * Width in pixels (height keeps the aspect ratio; never enlarged).
   * @default 320
   */
  readonly width?: number;
  /**
   * Encoding.
   * @default 'webp'
   */
  readonly format?: 'webp' | 'jpeg';
  /**
   * Encoder quality, 1–100.
   * @default 50
   */
  readonly quality?: number;
  /**
   * Source images larger than this are not read (no thumbnail).
   * @default 32 MiB (`DEFAULT_FILE_LIMITS.maxImageBytes`)
   */
  readonly maxImageBytes?: number;
}

/** A made thumbnail. */
export interface Thumbnail {
  readonly data: Buffer;
  readonly mimeType: 'image/webp' | 'image/jpeg';
  /** sha256 of the source image's bytes (identical screenshots share one thumbnail). */
  readonly sourceHash: string;
}

/**
 * Makes thumbnails with sharp and keeps them: by file path + size + mtime (a rewritten file is
 * made again) and by content hash (identical screenshots are encoded once).
 */
export class ThumbnailCache {
  private readonly byFile = new Map<string, Promise<Thumbnail | undefined>>();
  private readonly byHash = new Map<string, Promise<Thumbnail>>();
  private readonly options: Required<ThumbnailOptions>;

  constructor(options: ThumbnailOptions = {}) {
    this.options = {
      width: 320,
      format: 'webp',
      quality: 50,
      maxImageBytes: DEFAULT_FILE_LIMITS.maxImageBytes,
      ...options,
    };
  }

  /**
   * The thumbnail of an image file; undefined when it cannot be read or decoded, or when it is
   * refused (a symlink, not a regular file, over the cap, not an image by content).
   */
  async get(file: string): Promise<Thumbnail | undefined> {
    let info;
    try {
      info = await stat(file);
    } catch {
      return undefined;
    }
    const fileKey = `${file}\0${info.size}\0${info.mtimeMs}`;
    let pending = this.byFile.get(fileKey);
    if (!pending) {
      pending = this.make(file).catch(() => undefined);
      this.byFile.set(fileKey, pending);
    }
    return pending;
  }

  /** The thumbnail as a `data:` URI; undefined when the image cannot be read. */
  async dataUri(file: string): Promise<string | undefined> {
    const thumbnail = await this.get(file);
    return thumbnail && `data:${thumbnail.mimeType};base64,${thumbnail.data.toString('base64')}`;
  }

  private async make(file: string): Promise<Thumbnail> {
    const bytes = await readTrajectoryFile(file, {
      within: dirname(file),
      maxBytes: this.options.maxImageBytes,
      kind: 'image',
    });
    const sourceHash = createHash('sha256').update(bytes).digest('hex');
    let pending = this.byHash.get(sourceHash);
    if (!pending) {
      const { width, format, quality } = this.options;
      pending = sharp(bytes)
        .resize({ width, withoutEnlargement: true })
        .toFormat(format, { quality })
        .toBuffer()
        .then(data => ({
          data,
          mimeType: format === 'webp' ? ('image/webp' as const) : ('image/jpeg' as const),
          sourceHash,
        }));
      this.byHash.set(sourceHash, pending);
      pending.catch(() => this.byHash.delete(sourceHash));
    }
    return pending;
  }
}
