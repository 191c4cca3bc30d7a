import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
} from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { OsharmError } from './osharm-error';
import { realDirPath } from './real-dirs';

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

/**
 * True when `path` lies strictly inside `root`. Both are absolute and normalized: `resolve()`d, or
 * real paths (realpath, or the kernel's `/proc/self/fd` link). A prefix test, not `relative()`,
 * which resolves both again (two per file opened, ~20 per judged trajectory); anything else the
 * kernel may name a descriptor by (`pipe:[…]`) is outside.
 */
const inside = (root: string, path: string) => {
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  return path.length > prefix.length && path.startsWith(prefix);
};

// The checks and reads below are synchronous: metadata and small reads of local files, where a
// round trip through libuv's thread pool cost more CPU than the call itself (the judge opens ~15
// files per trajectory; packages/judge/bench: open, fstat, readlink and realpath were its largest
// CPU items). Only openTrajectoryFile's open, for callers that stream, goes through the pool.

/** What a file name resolves to before it is opened. */
interface Placed {
  readonly within: string;
  readonly target: string;
  readonly realWithin: string;
}

const refuse = (file: string, reason: UnsafeFileReason, message: string): never => {
  throw new UnsafeFileError({ file, reason, message });
};

function place(file: string, options: TrajectoryFileOptions): Placed {
  const within = resolve(options.within);
  const target = resolve(within, file);
  if (file.includes('\0') || !inside(within, target))
    refuse(within, 'outside', `${JSON.stringify(file)} names a path outside the trajectory dir`);
  let realWithin: string;
  try {
    realWithin = realDirPath(within);
  } catch {
    return refuse(target, 'missing', 'the trajectory dir does not exist');
  }
  return { within, target, realWithin };
}

const OPEN_FLAGS =
  constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0);

function openFailed(placed: Placed, error: unknown): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'EMLINK')
    refuse(placed.target, 'symlink', 'is a symlink (not followed)');
  if (code === 'ENOENT' || code === 'ENOTDIR') refuse(placed.target, 'missing', 'does not exist');
  return refuse(
    placed.target,
    'not-regular',
    `cannot be opened (${code ?? (error as Error).message})`,
  );
}

/**
 * The checks on an opened descriptor: it resolves inside the trajectory dir (a parent dir may be a
 * symlink), is a regular file under the cap, and (kind `image`) starts like an image.
 */
function vet(
  fd: number,
  placed: Placed,
  options: TrajectoryFileOptions,
): { path: string; size: number; mtimeMs: number } {
  let real: string;
  try {
    real = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    real = realpathSync.native(placed.target);
  }
  if (!inside(placed.realWithin, real)) {
    // The remembered real dir may be stale (a parent re-pointed since): resolve it once more.
    let fresh: string | undefined;
    try {
      fresh = realDirPath(placed.within, true);
    } catch {
      // gone meanwhile: refused below as outside
    }
    if (fresh === undefined || !inside(fresh, real))
      refuse(placed.target, 'outside', `resolves outside the trajectory dir (${real})`);
  }
  const info = fstatSync(fd);
  if (!info.isFile())
    refuse(placed.target, 'not-regular', 'is not a regular file (FIFO, device or directory)');
  if (info.size > options.maxBytes)
    refuse(
      placed.target,
      'too-large',
      `is ${formatBytes(info.size)}, over the ${formatBytes(options.maxBytes)} cap (raise the cap if the file is genuine)`,
    );
  if (options.kind === 'image') {
    const head = Buffer.alloc(12);
    const bytesRead = readSync(fd, head, 0, 12, 0);
    if (!isImageBytes(head.subarray(0, bytesRead)))
      refuse(placed.target, 'not-image', 'is not a PNG, JPEG or WebP image');
  }
  return { path: real, size: info.size, mtimeMs: info.mtimeMs };
}

/** {@link openTrajectoryFile} with a plain descriptor, synchronously; close `fd` when done. */
function openVettedSync(
  file: string,
  options: TrajectoryFileOptions,
): { fd: number; path: string; size: number; mtimeMs: number } {
  const placed = place(file, options);
  let fd: number;
  try {
    fd = openSync(placed.target, OPEN_FLAGS);
  } catch (error) {
    return openFailed(placed, error);
  }
  try {
    return { fd, ...vet(fd, placed, options) };
  } catch (error) {
    closeSync(fd);
    throw error;
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
  const placed = place(file, options);
  let handle: FileHandle;
  try {
    handle = await open(placed.target, OPEN_FLAGS);
  } catch (error) {
    return openFailed(placed, error);
  }
  try {
    const { path, size } = vet(handle.fd, placed, options);
    return { handle, path, size };
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
  const opened = openVettedSync(file, options);
  try {
    const buffer = Buffer.alloc(Math.min(opened.size, options.maxBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      const bytesRead = readSync(opened.fd, buffer, length, buffer.length - length, length);
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
    closeSync(opened.fd);
  }
}

/**
 * The first (or, with `tail`, the last) `length` bytes of a file a trajectory names, as UTF-8, after
 * the checks of {@link openTrajectoryFile}, with the file's size and mtime. For the package's own
 * readers (run status, capped text).
 * @throws {UnsafeFileError}
 */
export function readTrajectoryRegion(
  file: string,
  options: Omit<TrajectoryFileOptions, 'kind'>,
  { length, tail = false }: { length: number; tail?: boolean },
): { text: string; size: number; mtimeMs: number } {
  const opened = openVettedSync(file, options);
  try {
    const wanted = Math.min(length, opened.size);
    const buffer = Buffer.alloc(wanted);
    let read = 0;
    const start = tail ? opened.size - wanted : 0;
    while (read < wanted) {
      const bytesRead = readSync(opened.fd, buffer, read, wanted - read, start + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return {
      text: buffer.subarray(0, read).toString('utf8'),
      size: opened.size,
      mtimeMs: opened.mtimeMs,
    };
  } finally {
    closeSync(opened.fd);
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
    const opened = openVettedSync(file, options);
    closeSync(opened.fd);
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
