#!/usr/bin/env node
// The public surface of every published entry, pinned (docs/architecture.md, "Surfaces"): the names
// each package.json `exports` entry gives (values and types), read from its source with the
// TypeScript compiler, compared with docs/api-surfaces.json. A name added or removed fails with one
// line per entry naming what changed; `--update` rewrites the file after an intended change (then
// review the diff: it is the change of the public API). Run by `pnpm lint`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { publishedPackages } from './workspaces.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const pinnedPath = join(root, 'docs', 'api-surfaces.json');

/** `{ "<package>/<subpath>": <source file> }` of every package's code entries. */
function entries() {
  const found = {};
  for (const { name, manifest } of publishedPackages(root)) {
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (subpath === './package.json' || subpath.includes('*')) continue;
      const built = typeof target === 'string' ? target : (target.import ?? target.default);
      // dist/X.js is built from src/X.ts or src/X/index.ts (the packages' tsup entries)
      const stem = join(
        root,
        'packages',
        name,
        built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, ''),
      );
      const source = [`${stem}.ts`, join(stem, 'index.ts')].find(path => existsSync(path));
      if (!source)
        throw new Error(`packages/${name}/package.json: ${subpath} has no source ${stem}.ts`);
      found[`${manifest.name}${subpath.slice(1)}`] = source;
    }
  }
  return found;
}

function surfaces(files) {
  const program = ts.createProgram(Object.values(files), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const result = {};
  for (const [entry, file] of Object.entries(files)) {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${relative(root, file)}: not a module`);
    result[entry] = checker
      .getExportsOfModule(module)
      .map(symbol => symbol.getName())
      .sort();
  }
  return result;
}

const current = surfaces(entries());
if (process.argv.includes('--update')) {
  writeFileSync(pinnedPath, `${JSON.stringify(current, null, 2)}\n`);
  const names = Object.values(current).reduce((sum, list) => sum + list.length, 0);
  console.log(
    `check-surfaces: wrote ${relative(root, pinnedPath)} (${Object.keys(current).length} entries, ${names} names)`,
  );
  process.exit(0);
}
const pinned = existsSync(pinnedPath) ? JSON.parse(readFileSync(pinnedPath, 'utf8')) : {};
const problems = [];
for (const entry of new Set([...Object.keys(pinned), ...Object.keys(current)])) {
  const before = new Set(pinned[entry] ?? []);
  const after = new Set(current[entry] ?? []);
  const added = [...after].filter(name => !before.has(name));
  const removed = [...before].filter(name => !after.has(name));
  if (!(entry in pinned)) problems.push(`${entry}: a new entry (${after.size} names)`);
  else if (!(entry in current)) problems.push(`${entry}: the entry is gone`);
  else if (added.length || removed.length)
    problems.push(
      `${entry}:${added.length ? ` added ${added.join(', ')}` : ''}${removed.length ? ` removed ${removed.join(', ')}` : ''}`,
    );
}
if (problems.length) {
  for (const line of problems) console.error(`check-surfaces: ${line}`);
  console.error(
    'check-surfaces: the public surface changed; if intended, run `node scripts/check-surfaces.mjs --update` and document the names',
  );
  process.exit(1);
}
const names = Object.values(current).reduce((sum, list) => sum + list.length, 0);
console.log(`check-surfaces: ${Object.keys(current).length} entries, ${names} names, as pinned`);
