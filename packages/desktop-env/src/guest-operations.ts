// The guest protocol's operations with their timeouts and answer caps, and the two ways an answer is read within its cap: into memory
// (past the cap: an error) or streamed to a file (past the cap: cut, marked truncated).
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
/** The guest protocol calls, one per client method; keys of {@link GuestClientSettings.timeouts}. */
export type GuestOperation =
  | 'screenshot'
  | 'accessibilityTree'
  | 'terminalOutput'
  | 'execute'
  | 'executeWithVerification'
  | 'launch'
  | 'runPython'
  | 'runBashScript'
  | 'getFile'
  | 'uploadFile'
  | 'listDirectory'
  | 'openFile'
  | 'activateWindow'
  | 'closeWindow'
  | 'changeWallpaper'
  | 'screenSize'
  | 'cursorPosition'
  | 'windowSize'
  | 'desktopPath'
  | 'wallpaper'
  | 'platform'
  | 'startRecording'
  | 'endRecording';

/**
 * Default timeout of each call in ms. Every call is bounded (upstream's `/accessibility` call had no
 * timeout at all, issue #182). `runBashScript` has no fixed default: it is the script's own timeout
 * + 100 s, as upstream; `executeWithVerification` is `maxWaitTime` + 10 s, as upstream.
 */
export const DEFAULT_GUEST_TIMEOUTS_MS: Readonly<Record<GuestOperation, number>> = {
  screenshot: 10_000,
  accessibilityTree: 30_000,
  terminalOutput: 10_000,
  // the guest's subprocess timeout is 120 s; leave room for the answer
  execute: 130_000,
  executeWithVerification: 20_000,
  launch: 10_000,
  // the guest runs the code with a 30 s timeout; upstream's host waits 90 s
  runPython: 90_000,
  runBashScript: 130_000,
  getFile: 60_000,
  listDirectory: 30_000,
  uploadFile: 600_000,
  // the guest waits up to 60 s for the file's window (osharm's server; upstream: 1800 s), then answers
  openFile: 70_000,
  // osharm's guest waits up to 10 s for the window to appear before answering
  activateWindow: 25_000,
  closeWindow: 10_000,
  changeWallpaper: 10_000,
  screenSize: 10_000,
  cursorPosition: 10_000,
  windowSize: 10_000,
  desktopPath: 10_000,
  wallpaper: 30_000,
  platform: 10_000,
  startRecording: 10_000,
  // the guest waits up to 15 s for ffmpeg to finish, then sends the whole mp4
  endRecording: 120_000,
};

const MiB = 1024 * 1024;

/**
 * Default cap of each answer in bytes. An answer is read incrementally and the transfer stops at
 * the cap: a call answered in memory then fails (the guest's answer is larger than its cap); a
 * call streamed to disk ({@link GuestTransport.download}: `/file` to a file, the recording) keeps
 * what came and reports it truncated. The agent controls what the desktop holds, so nothing it
 * offers may grow the harness's memory or disk without bound.
 */
export const DEFAULT_GUEST_ANSWER_LIMITS: Readonly<Record<GuestOperation, number>> = {
  screenshot: 64 * MiB,
  accessibilityTree: 64 * MiB,
  terminalOutput: 16 * MiB,
  // the guest keeps at most 32 MiB of a command's output; JSON escaping can double it
  execute: 80 * MiB,
  executeWithVerification: 80 * MiB,
  launch: MiB,
  runPython: 80 * MiB,
  runBashScript: 80 * MiB,
  // in memory (getFile); downloads to disk take their own cap (downloadFile)
  getFile: 64 * MiB,
  uploadFile: MiB,
  listDirectory: 64 * MiB,
  openFile: MiB,
  activateWindow: MiB,
  closeWindow: MiB,
  changeWallpaper: MiB,
  screenSize: MiB,
  cursorPosition: MiB,
  windowSize: MiB,
  desktopPath: MiB,
  wallpaper: 64 * MiB,
  platform: MiB,
  startRecording: MiB,
  endRecording: 2048 * MiB,
};

/** Default cap of a file downloaded to disk with `downloadFile` (evaluators' files). */
export const DEFAULT_DOWNLOAD_LIMIT_BYTES = 1024 * MiB;

/** What {@link GuestTransport.download} wrote. */
export interface DownloadResult {
  /** Bytes written to the destination. */
  readonly bytes: number;
  /** True when the answer was longer than the cap and the transfer was stopped there. */
  readonly truncated: boolean;
}

/** Thrown when an answer read into memory is longer than its cap. */
export class AnswerTooLarge extends Error {}

/**
 * Reads an answer into memory, at most `maxBytes`: past it the transfer is stopped and
 * {@link AnswerTooLarge} thrown (an announced content-length over the cap fails before reading).
 */
export async function readCapped(body: Readable, maxBytes: number, path: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      throw new AnswerTooLarge(
        `guest answer to ${path} is larger than its cap of ${maxBytes} bytes; the transfer was stopped`,
      );
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Streams an answer to `destination` through a temporary file beside it (renamed into place at the
 * end, removed on failure), at most `maxBytes`: the rest is never read.
 */
export async function streamToFile(
  body: Readable,
  destination: string,
  maxBytes: number,
): Promise<DownloadResult> {
  const temporary = `${destination}.part-${process.pid}-${Date.now()}`;
  const out = createWriteStream(temporary, { flags: 'wx' });
  let bytes = 0;
  let truncated = false;
  try {
    for await (const chunk of body) {
      let piece = chunk as Buffer;
      if (bytes + piece.length > maxBytes) {
        piece = piece.subarray(0, maxBytes - bytes);
        truncated = true;
      }
      bytes += piece.length;
      // `once` rejects on 'error' and removes its listeners either way
      if (piece.length > 0 && !out.write(piece)) await once(out, 'drain');
      if (truncated) {
        body.destroy();
        break;
      }
    }
    await new Promise<void>((resolve, reject) => {
      out.once('error', reject);
      out.end(() => resolve());
    });
    await rename(temporary, destination);
  } catch (error) {
    out.destroy();
    await rm(temporary, { force: true });
    throw error;
  }
  return { bytes, truncated };
}
