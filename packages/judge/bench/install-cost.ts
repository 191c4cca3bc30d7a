/**
 * What installing and importing @osharm/judge costs, measured on this checkout's build:
 * - install: the production dependency closure of @osharm/judge as installed here (dependencies
 *   and the optional peers that are present are not followed — only what `npm install
 *   @osharm/judge` installs: `dependencies`, recursively), its package count and bytes on disk
 *   (workspace packages count their `dist` and `package.json`, as their tarballs hold);
 * - import: the median wall time of `await import('@osharm/judge')` in a fresh node process
 *   (7 runs), and which vendor SDKs that import loaded.
 * Run: `pnpm --filter @osharm/judge run build && node --experimental-strip-types bench/install-cost.ts`
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// argv[2]: another checkout's packages/judge (to measure a before/after pair on one machine)
const judgeDir = resolve(process.argv[2] ?? resolve(dirname(fileURLToPath(import.meta.url)), '..'));

function sizeOf(path: string, skipNodeModules = true): number {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return 0;
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const entry of readdirSync(path)) {
    if (skipNodeModules && entry === 'node_modules') continue;
    total += sizeOf(join(path, entry), skipNodeModules);
  }
  return total;
}

/** The directory of package `name` as resolved from `fromDir` (node's lookup up the tree). */
function findPackage(name: string, fromDir: string): string | undefined {
  let dir = fromDir;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

interface Closure {
  readonly packages: Map<string, number>;
}

function closure(rootDir: string): Closure {
  const packages = new Map<string, number>();
  const visit = (dir: string, isRoot: boolean) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    const key = `${manifest.name}@${manifest.version}`;
    if (packages.has(key)) return;
    const workspace = !dir.includes(`${join('node_modules', '.pnpm')}`);
    const bytes = workspace
      ? (existsSync(join(dir, 'dist')) ? sizeOf(join(dir, 'dist')) : 0) +
        statSync(join(dir, 'package.json')).size
      : sizeOf(dir);
    packages.set(key, isRoot ? bytes : bytes);
    const deps = { ...manifest.dependencies, ...manifest.optionalDependencies };
    for (const name of Object.keys(deps)) {
      const found = findPackage(name, dir);
      if (found) visit(found, false);
    }
  };
  visit(rootDir, true);
  return { packages };
}

function importTimes(runs: number): { median: number; sdks: string[] } {
  // registerHooks (Node >= 22.15) sees every module the import resolves, ESM or CommonJS.
  const script = `
    const { registerHooks } = await import('node:module');
    const seen = new Set();
    registerHooks({ resolve(specifier, context, next) { const out = next(specifier, context); seen.add(out.url); return out; } });
    const t = performance.now();
    await import('@osharm/judge');
    const ms = performance.now() - t;
    const sdks = ['openai', '@anthropic-ai/sdk', '@google/genai'].filter(name =>
      [...seen].some(url => url.includes('/node_modules/' + name + '/')),
    );
    console.log(JSON.stringify({ ms, sdks }));`;
  const results: { ms: number; sdks: string[] }[] = [];
  for (let run = 0; run < runs; run += 1) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: judgeDir,
      encoding: 'utf8',
    });
    results.push(JSON.parse(out.trim().split('\n').at(-1)!) as { ms: number; sdks: string[] });
  }
  const sorted = results.map(result => result.ms).sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, sdks: results[0]!.sdks };
}

const { packages } = closure(judgeDir);
const total = [...packages.values()].reduce((sum, bytes) => sum + bytes, 0);
const biggest = [...packages.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6);
const imports = importTimes(7);
console.log(
  `@osharm/judge install closure: ${packages.size} packages, ${(total / 1e6).toFixed(1)} MB`,
);
for (const [name, bytes] of biggest) console.log(`  ${name}: ${(bytes / 1e6).toFixed(1)} MB`);
console.log(
  `cold import of @osharm/judge: median ${imports.median.toFixed(0)} ms over 7 fresh processes; vendor SDKs loaded by the import: ${imports.sdks.join(', ') || 'none'}`,
);
