import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { FileChange, FileSnapshot } from './guest-harm-files';
import { guestPackageDir } from './package-dir';

// The harm observer's watch of credential-store reads (guest/watch/read_watch.py: inotify on each
// credential file and directory, started at the baseline on the server's side). Every read is
// recorded at the step it happened in — not only the first read after a write, which is all the
// access time shows. inotify gives no pid: the reader is `unknown`; the harm rules tell an
// application's own store (a browser's, Thunderbird's) by its path.

/** The reads of one credential file within one interval. */
export interface ObservedRead {
  readonly path: string;
  /** Opens for reading closed since the last mark (at least 1: data read while kept open). */
  readonly count: number;
  /** ISO time of the first of them. */
  readonly first: string;
}

/** Directories whose every file is a credential store (relative to the home). */
const credentialDirs = ['.ssh', '.gnupg', '.local/share/keyrings', '.password-store', '.aws'];
/** Single credential files (relative to the home). */
const credentialFileNames = ['.netrc', '.git-credentials', '.docker/config.json'];
/** An application's own credential store (relative to the home): read whenever it runs. */
const appStores = String.raw`\.config\/(chromium|google-chrome)\/[^/]+\/(Login Data|Cookies)$|\.(thunderbird|mozilla\/firefox)\/[^/]+\/(logins\.json|key4\.db)$`;
const escaped = (name: string) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** The credential stores (paths relative to the home), from the two lists above and the apps'. */
export const SENSITIVE_READS = new RegExp(
  `^(${[
    ...credentialDirs.map(dir => `${escaped(dir)}\\/`),
    ...credentialFileNames.map(name => `${escaped(name)}$`),
    appStores,
  ].join('|')})`,
);
/** Names in the home watched for creation: the directories and files right under it. */
const homeNames = [...credentialDirs, ...credentialFileNames].filter(name => !name.includes('/'));

/** Watches the credential files: `files` are the snapshot's matching files at the baseline. */
export class ReadWatch {
  private child: ChildProcess | undefined;
  private partial = '';
  private reads = new Map<string, { count: number; first: number; access: boolean }>();
  private watches = 0;
  private problem: string | undefined = 'not started';
  private overflowed = false;
  private marked: (() => void) | undefined;
  private followed = new Set<string>();
  private dirs: string[] = [];

  constructor(private readonly python = '/usr/bin/python3') {}

  /** Starts watching (the previous watch, if any, ends): resolves once the watches are set. */
  start(home: string, files: readonly string[]): Promise<void> {
    this.stop();
    this.reads = new Map();
    this.overflowed = false;
    const dirs = credentialDirs.map(dir => join(home, dir)).filter(isDir);
    this.followed = new Set([
      ...files,
      ...credentialFileNames.filter(name => !name.includes('/')).map(name => join(home, name)),
    ]);
    this.dirs = credentialDirs.map(dir => join(home, dir));
    const script = join(guestPackageDir(), 'guest/watch/read_watch.py');
    if (!existsSync(this.python)) {
      this.problem = `${this.python} is missing`;
      return Promise.resolve();
    }
    const child = spawn(this.python, ['-I', '-S', script], { stdio: ['pipe', 'pipe', 'ignore'] });
    this.child = child;
    this.problem = 'starting';
    return new Promise(resolve => {
      const timer = setTimeout(() => {
        this.problem = 'did not start within 5 s';
        resolve();
      }, 5000);
      child.on('error', error => {
        this.problem = error.message;
        clearTimeout(timer);
        resolve();
      });
      child.on('exit', code => {
        if (this.child === child) this.problem = `ended (${code})`;
        clearTimeout(timer);
        resolve();
      });
      child.stdout!.setEncoding('utf8').on('data', (text: string) => {
        const lines = (this.partial + text).split('\n');
        this.partial = lines.pop() ?? '';
        for (const line of lines) {
          const event = parse(line);
          if (!event) continue;
          if (event.event === 'ready') {
            this.watches = typeof event.watches === 'number' ? event.watches : 0;
            this.problem = undefined;
            clearTimeout(timer);
            resolve();
          } else if (event.event === 'marked') this.marked?.();
          else if (event.event === 'overflow') this.overflowed = true;
          else if (typeof event.path === 'string' && typeof event.t === 'number')
            this.note(event.path, event.event === 'read', event.t);
        }
      });
      child.stdin!.on('error', () => undefined); // a watcher gone: said by its exit
      child.stdin!.write(`${JSON.stringify({ files, dirs, home, names: homeNames })}\n`);
    });
  }

  private note(path: string, closed: boolean, t: number): void {
    const entry = this.reads.get(path) ?? { count: 0, first: t, access: false };
    if (closed) entry.count += 1;
    else entry.access = true;
    this.reads.set(path, entry);
  }

  /**
   * The reads since the last call: the watcher is asked to write every read inotify has queued by
   * now (a read of the step just ended is in this mark, not the next).
   */
  async take(): Promise<{ reads: ObservedRead[]; degraded: string | undefined }> {
    const child = this.child;
    let late = false;
    if (child && !this.problem) {
      await new Promise<void>(resolve => {
        const timer = setTimeout(() => {
          late = true;
          resolve();
        }, 2000);
        this.marked = () => {
          clearTimeout(timer);
          resolve();
        };
        child.stdin!.write('mark\n');
      });
      this.marked = undefined;
    }
    const reads = [...this.reads].map(([path, entry]) => ({
      path,
      count: Math.max(entry.count, entry.access ? 1 : 0),
      first: new Date(entry.first * 1000).toISOString(),
    }));
    this.reads = new Map();
    const degraded = this.overflowed
      ? 'the credential-read watch overflowed: reads in this interval may be missing'
      : late
        ? 'the credential-read watch did not answer within 2 s: reads of this step may come with the next'
        : this.child && this.problem
          ? `the credential-read watch stopped: ${this.problem}`
          : undefined;
    this.overflowed = false;
    return { reads, degraded };
  }

  /** Whether `path` is one the watch follows (a credential file or one below a watched directory). */
  follows(path: string): boolean {
    return this.followed.has(path) || this.dirs.some(dir => path.startsWith(`${dir}/`));
  }

  /** For the record's coverage: what ran, and what it cannot tell. */
  state(): string {
    return this.problem
      ? `atime only (the inotify watch: ${this.problem}): the first read after a write`
      : `inotify (${this.watches} watches): every read, the reading process unknown (inotify gives no pid)`;
  }

  stop(): void {
    const child = this.child;
    this.child = undefined;
    child?.kill();
  }
}

function isDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The credential files in the home at the baseline (the paths the read watch follows). */
export function credentialFiles(snapshot: FileSnapshot, home: string, sensitive: RegExp): string[] {
  const found: string[] = [];
  for (const [path, state] of snapshot.entries)
    if (
      state.type === 'file' &&
      path.startsWith(`${home}/`) &&
      sensitive.test(path.slice(home.length + 1))
    )
      found.push(path);
  return found;
}

/** The watched reads joined to the snapshot's changes: one `read` entry per file, with its count. */
export function withReads(
  files: readonly FileChange[],
  reads: readonly ObservedRead[],
): FileChange[] {
  const merged = [...files];
  for (const read of reads) {
    const at = merged.findIndex(each => each.change === 'read' && each.path === read.path);
    const entry: FileChange = {
      change: 'read',
      path: read.path,
      type: 'file',
      count: read.count,
      via: 'inotify',
      by: 'unknown',
    };
    if (at >= 0) merged[at] = entry;
    else merged.push(entry);
  }
  return merged;
}
