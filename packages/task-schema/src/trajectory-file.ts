import { constants, readlinkSync, realpathSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { OsharmError } from './osharm-error';

/**
 * Size caps on the files of a trajectory dir. A trajectory may be crafted (the agent is assumed
 * hostile, and trees are shared), so nothing is read whole without a cap.
 */
export interface TrajectoryFileLimits {
  /** Screenshots and other images, in bytes. @default 32 MiB ({@link DEFAULT_FILE_LIMITS}) */
  readonly maxImageBytes?: number;
  /**
   * `better_log.json`, `traj.jsonl`, `judgment.json`, caption caches, batch results files and
   * every other text file, in bytes. @default 32 MiB
   */
  readonly maxTextBytes?: number;
}

const MiB = 1024 * 1024;

/** The default caps: real screenshots are 0.1–3 MB, real `better_log.json` files under 1 MB. */
export const DEFAULT_FILE_LIMITS: Required<TrajectoryFileLimits> = {
  maxImageBytes: 32 * MiB,
  maxTextBytes: 32 * MiB,
};

/** Why a trajectory file was refused. */
export type UnsafeFileReason =
  'missing' | 'outside' | 'symlink' | 'not-regular' | 'too-large' | 'not-image';

const errorName = 'OsharmUnsafeFileError';
const errorMarker = `osharm.error.${errorName}`;
const errorSymbol = Symbol.for(errorMarker);

/** A file a trajectory names was not read: missing, outside the dir, not a regular file, too large, or not an image. */
export class UnsafeFileError extends OsharmError {
  private readonly [errorSymbol] = true;
  readonly file: string;
  readonly reason: UnsafeFileReason;

  constructor({
    file,
    reason,
    message,
  }: {
    file: string;
    reason: UnsafeFileReason;
    message: string;
  }) {
    super({ name: errorName, message: `${file}: ${message}` });
    this.file = file;
    this.reason = reason;
  }

  static override isInstance(error: unknown): error is UnsafeFileError {
    return OsharmError.hasMarker(error, errorMarker);
  }
}

/** Options of {@link openTrajectoryFile}, {@link readTrajectoryFile} and {@link checkTrajectoryFile}. */
export interface TrajectoryFileOptions {
  /** The directory the file must stay inside once every symlink is resolved (the trajectory dir). */
  readonly within: string;
  /** Refuse files larger than this many bytes. */
  readonly maxBytes: number;
  /** `image`: the bytes must start like a PNG, JPEG or WebP file. @default 'any' */
  readonly kind?: 'image' | 'any';
}

/** An opened trajectory file; close `handle` when done. */
export interface OpenedTrajectoryFile {
  readonly handle: FileHandle;
  /** The real path of the opened file. */
  readonly path: string;
  readonly size: number;
}

/** True when `bytes` start like a PNG, JPEG or WebP image. */
export function isImageBytes(bytes: Uint8Array): boolean {
  const ascii = (start: number, end: number) =>
    Buffer.from(bytes.subarray(start, end)).toString('latin1');
  if (bytes[0] === 0x89 && ascii(1, 8) === 'PNG\r\n\x1a\n') return true;
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return true;
  return ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP';
}

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
};

// The path checks below are synchronous: metadata of local files, where a round trip through
// libuv's thread pool cost more CPU than the call itself (the judge opens several files per
// trajectory; packages/judge/bench: realpath, readlink and lstat were its largest CPU items).

/** The real path of an open descriptor (Linux: /proc/self/fd), or undefined where there is none. */
function descriptorPath(handle: FileHandle): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${handle.fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Opens a file a trajectory names, checking on the opened descriptor (no race between check and
 * read) that it is a regular file resolving inside `within`, under `maxBytes`, and (kind `image`)
 * an image by its first bytes. The last path component is never followed when it is a symlink
 * (`O_NOFOLLOW`); a FIFO never blocks the open (`O_NONBLOCK`) and is refused as not regular.
 * @throws {UnsafeFileError} naming the file and the reason; nothing is read then.
 */
export async function openTrajectoryFile(
  file: string,
  options: TrajectoryFileOptions,
): Promise<OpenedTrajectoryFile> {
  const within = resolve(options.within);
  const target = resolve(within, file);
  const refuse = (reason: UnsafeFileReason, message: string): never => {
    throw new UnsafeFileError({ file: target, reason, message });
  };
  if (file.includes('\0') || !inside(within, target))
    throw new UnsafeFileError({
      file: within,
      reason: 'outside',
      message: `${JSON.stringify(file)} names a path outside the trajectory dir`,
    });
  let realWithin: string;
  try {
    realWithin = realpathSync(within);
  } catch {
    return refuse('missing', 'the trajectory dir does not exist');
  }
  let handle: FileHandle;
  try {
    handle = await open(
      target,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0),
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK')
      return refuse('symlink', 'is a symlink (not followed)');
    if (code === 'ENOENT' || code === 'ENOTDIR') return refuse('missing', 'does not exist');
    return refuse('not-regular', `cannot be opened (${code ?? (error as Error).message})`);
  }
  try {
    // Where the descriptor really points (a parent dir may be a symlink): must be inside.
    const real = descriptorPath(handle) ?? realpathSync(target);
    if (!inside(realWithin, real))
      refuse('outside', `resolves outside the trajectory dir (${real})`);
    const info = await handle.stat();
    if (!info.isFile()) refuse('not-regular', 'is not a regular file (FIFO, device or directory)');
    if (info.size > options.maxBytes)
      refuse(
        'too-large',
        `is ${formatBytes(info.size)}, over the ${formatBytes(options.maxBytes)} cap (raise the cap if the file is genuine)`,
      );
    if (options.kind === 'image') {
      const head = Buffer.alloc(12);
      const { bytesRead } = await handle.read(head, 0, 12, 0);
      if (!isImageBytes(head.subarray(0, bytesRead)))
        refuse('not-image', 'is not a PNG, JPEG or WebP image');
    }
    return { handle, path: real, size: info.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Reads a file a trajectory names, whole, after the checks of {@link openTrajectoryFile}. At most
 * `maxBytes` are read even if the file grows meanwhile.
 * @throws {UnsafeFileError}
 */
export async function readTrajectoryFile(
  file: string,
  options: TrajectoryFileOptions,
): Promise<Buffer> {
  const opened = await openTrajectoryFile(file, options);
  try {
    const buffer = Buffer.alloc(Math.min(opened.size, options.maxBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await opened.handle.read(
        buffer,
        length,
        buffer.length - length,
        length,
      );
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > options.maxBytes)
      throw new UnsafeFileError({
        file: opened.path,
        reason: 'too-large',
        message: `grew over the ${formatBytes(options.maxBytes)} cap while read`,
      });
    return buffer.subarray(0, length);
  } finally {
    await opened.handle.close();
  }
}

/** {@link readTrajectoryFile} as UTF-8 text. */
export async function readTrajectoryText(
  file: string,
  options: Omit<TrajectoryFileOptions, 'kind'>,
): Promise<string> {
  return (await readTrajectoryFile(file, options)).toString('utf8');
}

/** The outcome of {@link checkTrajectoryFile}. */
export type TrajectoryFileCheck =
  | { readonly ok: true; readonly path: string; readonly size: number }
  | { readonly ok: false; readonly reason: UnsafeFileReason; readonly message: string };

/**
 * Checks that a file could be read by {@link readTrajectoryFile} (opens it and closes it again),
 * without throwing: for loaders that turn a refused file into a note.
 */
export async function checkTrajectoryFile(
  file: string,
  options: TrajectoryFileOptions,
): Promise<TrajectoryFileCheck> {
  try {
    const opened = await openTrajectoryFile(file, options);
    await opened.handle.close();
    return { ok: true, path: opened.path, size: opened.size };
  } catch (error) {
    if (!UnsafeFileError.isInstance(error)) throw error;
    return { ok: false, reason: error.reason, message: error.message };
  }
}

/** What {@link screenshotChecker} returns: `check(name)` and the names refused so far. */
export interface ScreenshotChecker {
  /** The real path of a usable screenshot of the trajectory, else `undefined` (missing or refused). */
  readonly check: (name: string | undefined) => Promise<string | undefined>;
  /** Refused names (not missing ones) with the reason. */
  readonly refused: ReadonlyMap<string, UnsafeFileReason>;
}

/**
 * Checks each screenshot name of a trajectory once (inside `dir`, a regular image file under
 * `maxImageBytes`), for loaders that read many steps: a refusal is pushed to `notes` once and the
 * file is never read.
 */
export function screenshotChecker(
  dir: string,
  maxImageBytes: number,
  notes: string[],
): ScreenshotChecker {
  const checked = new Map<string, Promise<string | undefined>>();
  const refused = new Map<string, UnsafeFileReason>();
  const check = (name: string | undefined): Promise<string | undefined> => {
    if (name === undefined || name === '') return Promise.resolve(undefined);
    let pending = checked.get(name);
    if (!pending) {
      pending = checkTrajectoryFile(name, {
        within: dir,
        maxBytes: maxImageBytes,
        kind: 'image',
      }).then(result => {
        if (result.ok) return result.path;
        if (result.reason !== 'missing') {
          refused.set(name, result.reason);
          notes.push(`screenshot refused (not read): ${result.message}`);
        }
        return undefined;
      });
      checked.set(name, pending);
    }
    return pending;
  };
  return { check, refused };
}

/** `1.5 MiB`, `512 B`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < MiB) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 * MiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  return `${(bytes / 1024 / MiB).toFixed(1)} GiB`;
}
