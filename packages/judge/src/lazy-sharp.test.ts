import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const srcDir = dirname(fileURLToPath(import.meta.url));
const packageDir = join(srcDir, '..');
const distEntry = join(packageDir, 'dist/index.js');
const sources = readdirSync(srcDir).filter(
  name => name.endsWith('.ts') && !name.endsWith('.test.ts'),
);

describe('sharp is loaded only where resizing happens', () => {
  beforeAll(() => {
    // The child imports the built package: build it when dist is missing or older than src.
    const newest = Math.max(...sources.map(name => statSync(join(srcDir, name)).mtimeMs));
    if (existsSync(distEntry) && statSync(distEntry).mtimeMs >= newest) return;
    const build = spawnSync('pnpm', ['run', 'build'], { cwd: packageDir, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`pnpm build failed:\n${build.stdout}${build.stderr}`);
  }, 120_000);

  it('importing the built @osharm/judge succeeds with sharp made unresolvable', () => {
    const code = `
      import { registerHooks } from 'node:module';
      registerHooks({
        resolve(specifier, context, next) {
          if (specifier === 'sharp') throw new Error('sharp was loaded at import');
          return next(specifier, context);
        },
      });
      const judge = await import(${JSON.stringify(pathToFileURL(distEntry).href)});
      console.log(typeof judge.judgeTree, typeof judge.encodeImage);
      try {
        await import('sharp');
      } catch (error) {
        console.log(error.message);
      }
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
      cwd: packageDir,
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    // The hook is live (a direct import of sharp is refused), and the judge loaded without it.
    expect(child.stdout.trim().split('\n')).toEqual([
      'function function',
      'sharp was loaded at import',
    ]);
  });

  it('no source module imports sharp statically', () => {
    const staticImports = sources.filter(name =>
      /^\s*import\s[^;]*from\s+['"]sharp['"]/m.test(readFileSync(join(srcDir, name), 'utf8')),
    );
    expect(staticImports).toEqual([]);
  });
});
