/**
 * A test double of the guest for the evaluator tests: files live under a host temp directory
 * (guest path `/home/user/x` is `<root>/home/user/x`), `/execute` answers come from a script the
 * test supplies, and every call is recorded. It stands in for the guest only; the real guest
 * server is @osharm/desktop-guest's.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GuestRequestError } from '@osharm/desktop-env';
import type {
  AccessibilityAnswer,
  DirectoryTree,
  ExecuteResult,
  GuestCallOptions,
} from '@osharm/desktop-env';
import type { EvaluationGuest } from '../getter-types';

export type ExecuteScript = (
  command: string | readonly string[],
  options: { shell?: boolean },
) => ExecuteResult | Promise<ExecuteResult>;

export const ok = (output: string, error = ''): ExecuteResult => ({
  status: 'success',
  output,
  error,
  returncode: 0,
});

/** Answers `printf %s "$HOME"` with /home/user and fails everything else with HTTP 500. */
const defaultScript: ExecuteScript = command => {
  if (Array.isArray(command) && command.join(' ') === '/bin/sh -c printf %s "$HOME"')
    return ok('/home/user');
  throw new GuestRequestError({
    endpoint: '/execute',
    status: 500,
    message: 'no script for this command',
  });
};

export class DirectoryGuest implements EvaluationGuest {
  readonly calls: Array<{ method: string; argument?: unknown }> = [];
  terminal: string | null = null;
  tree = '<desktop-frame name="main"/>';
  /** Guest paths whose /file request fails with HTTP 500. */
  readonly failingPaths = new Set<string>();

  constructor(
    readonly root: string,
    public script: ExecuteScript = defaultScript,
  ) {}

  /** Writes a file into the guest. */
  put(path: string, content: string | Uint8Array): void {
    const local = this.local(path);
    mkdirSync(dirname(local), { recursive: true });
    writeFileSync(local, content);
  }

  local(path: string): string {
    return join(this.root, path);
  }

  async execute(
    command: string | readonly string[],
    options: GuestCallOptions & { shell?: boolean; setup?: boolean } = {},
  ): Promise<ExecuteResult> {
    options.abortSignal?.throwIfAborted();
    this.calls.push({ method: 'execute', argument: command });
    return this.script(command, { shell: options.shell });
  }

  async getFile(path: string, options: GuestCallOptions = {}): Promise<Buffer | null> {
    options.abortSignal?.throwIfAborted();
    this.calls.push({ method: 'getFile', argument: path });
    if (this.failingPaths.has(path)) {
      throw new GuestRequestError({ endpoint: '/file', status: 500, message: 'boom' });
    }
    try {
      return readFileSync(this.local(path));
    } catch {
      return null;
    }
  }

  async terminalOutput(): Promise<string | null> {
    this.calls.push({ method: 'terminalOutput' });
    return this.terminal;
  }

  async accessibilityTree(): Promise<string> {
    this.calls.push({ method: 'accessibilityTree' });
    return this.tree;
  }

  async accessibility(): Promise<AccessibilityAnswer> {
    this.calls.push({ method: 'accessibilityTree' });
    return { tree: this.tree, truncated: null };
  }

  async listDirectory(path: string): Promise<DirectoryTree> {
    this.calls.push({ method: 'listDirectory', argument: path });
    const walk = (local: string, name: string): DirectoryTree =>
      statSync(local).isDirectory()
        ? {
            type: 'directory',
            name,
            children: readdirSync(local)
              .sort()
              .map(child => walk(join(local, child), child)),
          }
        : { type: 'file', name };
    try {
      return walk(this.local(path), path.split('/').filter(Boolean).pop() ?? '/');
    } catch {
      throw new GuestRequestError({
        endpoint: '/list_directory',
        status: 404,
        message: 'not found',
      });
    }
  }
}
