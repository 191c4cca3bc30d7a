// Packs every published package (packages/*) and checks the tarball as npm users get it:
// publint (package.json / exports / files) and attw (types resolve; ESM-only profile).
// `pnpm pack` rewrites workspace:* ranges, which `npm pack` (attw --pack) would not.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publishedPackages } from './workspaces.mjs';

const root = new URL('..', import.meta.url).pathname;
const bin = name => join(root, 'node_modules', '.bin', name);
const out = mkdtempSync(join(tmpdir(), 'osharm-pack-'));
let failed = 0;
try {
  for (const { dir, manifest } of publishedPackages(root)) {
    const run = (command, args) => {
      try {
        execFileSync(command, args, {
          cwd: dir,
          stdio: ['ignore', 'pipe', 'pipe'],
          encoding: 'utf8',
        });
        return true;
      } catch (error) {
        process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`);
        return false;
      }
    };
    execFileSync('pnpm', ['pack', '--pack-destination', out], { cwd: dir, stdio: 'ignore' });
    const tarball = readdirSync(out).find(file =>
      file.startsWith(`${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}`),
    );
    const publint = run(bin('publint'), ['run', '--strict', dir]);
    const attw = run(bin('attw'), [
      join(out, tarball),
      '--profile',
      'esm-only',
      '--format',
      'table-flipped',
    ]);
    console.log(
      `${manifest.name}@${manifest.version}: publint ${publint ? 'ok' : 'FAILED'}, attw ${attw ? 'ok' : 'FAILED'}`,
    );
    if (!publint || !attw) failed += 1;
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
