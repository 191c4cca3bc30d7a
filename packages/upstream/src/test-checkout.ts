import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** Where the shared upstream code and dataset are, found from `from` upward (or `OSHARM_SHARED_DIR`). */
export function findSharedDir(from: string = process.cwd()): string {
  const fromEnv = process.env.OSHARM_SHARED_DIR;
  if (fromEnv) return resolve(fromEnv);
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared');
    if (
      existsSync(join(candidate, 'osharm-upstream')) &&
      existsSync(join(candidate, 'osharm-dataset'))
    )
      return candidate;
    if (dirname(dir) === dir)
      throw new Error(`no shared/osharm-upstream above ${from} (set OSHARM_SHARED_DIR)`);
  }
}

export interface TestCheckoutOptions {
  /** The dir holding `osharm-upstream/` and `osharm-dataset/`. @default {@link findSharedDir} */
  readonly shared?: string;
  /** Paths (inside the checkout) to leave out, e.g. `run.py` or `judge/methods/aer.py`. */
  readonly omit?: readonly string[];
  /** Paths to write with this content instead of linking them (to craft broken checkouts). */
  readonly replace?: Readonly<Record<string, string | Uint8Array>>;
}

export interface TestCheckout {
  /** The checkout-shaped directory. */
  readonly dir: string;
  /** Removes the directory (the links only; their targets are untouched). */
  readonly remove: () => void;
}

/**
 * Test helper: a checkout-shaped temp dir of symlinks — every entry of `shared/osharm-upstream`
 * plus `shared/osharm-dataset/{evaluation_examples,assets}`; nothing is copied. `omit` and `replace`
 * turn it into a broken checkout (a directory on the way to a replaced path becomes a real
 * directory of links).
 */
export function createTestCheckout(options: TestCheckoutOptions = {}): TestCheckout {
  const shared = options.shared ?? findSharedDir();
  const dir = mkdtempSync(join(tmpdir(), 'osharm-upstream-'));
  const entries = new Map<string, string>();
  const upstream = join(shared, 'osharm-upstream');
  for (const name of readdirSync(upstream)) entries.set(name, join(upstream, name));
  for (const name of ['evaluation_examples', 'assets'])
    entries.set(name, join(shared, 'osharm-dataset', name));
  const special = [...(options.omit ?? []), ...Object.keys(options.replace ?? {})];
  link(dir, '', entries, special, options);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function link(
  dir: string,
  prefix: string,
  entries: ReadonlyMap<string, string>,
  special: readonly string[],
  options: TestCheckoutOptions,
): void {
  for (const [name, target] of entries) {
    const path = prefix + name;
    if (options.omit?.includes(path)) continue;
    const replacement = options.replace?.[path];
    if (replacement !== undefined) {
      writeFileSync(join(dir, path), replacement);
    } else if (
      special.some(other => other.startsWith(`${path}/`)) &&
      statSync(target).isDirectory()
    ) {
      mkdirSync(join(dir, path));
      const children = new Map(readdirSync(target).map(child => [child, join(target, child)]));
      link(dir, `${path}/`, children, special, options);
    } else {
      symlinkSync(target, join(dir, path));
    }
  }
  for (const [path, content] of Object.entries(options.replace ?? {})) {
    const parent = dirname(path);
    if ((parent === '.' ? '' : `${parent}/`) !== prefix || existsSync(join(dir, path))) continue;
    writeFileSync(join(dir, path), content);
  }
}
