#!/usr/bin/env node
// Every package README says where the package sits (docs/architecture.md): one "Place" line naming the
// osharm packages it imports and those that import it, read from the workspaces' manifests. A line that
// no longer matches fails with the README named; `--update` rewrites the lines. Run by `pnpm lint`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workspaces } from './workspaces.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const update = process.argv.includes('--update');
const all = workspaces(root, ['apps', 'packages']);
const label = ({ group, manifest }) =>
  group === 'apps' ? `apps/${manifest.name.split('/').pop()}` : manifest.name;
const ours = deps =>
  Object.keys(deps ?? {}).filter(
    name => name.startsWith('@osharm/') && name !== '@osharm/tsconfig',
  );

function placeLine(workspace) {
  const { manifest } = workspace;
  const imports = ours(manifest.dependencies);
  const optional = ours(manifest.peerDependencies).filter(name => !imports.includes(name));
  const importedBy = all
    .filter(other => other !== workspace)
    .filter(other =>
      [...ours(other.manifest.dependencies), ...ours(other.manifest.peerDependencies)].includes(
        manifest.name,
      ),
    )
    .map(label);
  const list = names => (names.length > 0 ? names.map(name => `\`${name}\``).join(', ') : 'none');
  const map = relative(workspace.dir, join(root, 'docs', 'architecture.md'));
  return (
    `**Place** ([map](${map})): imports ${list(imports)}` +
    (optional.length > 0 ? `; optional, loaded when used: ${list(optional)}` : '') +
    `; imported by ${list(importedBy)}.`
  );
}

let stale = 0;
for (const workspace of all) {
  const path = join(workspace.dir, 'README.md');
  const text = readFileSync(path, 'utf8');
  const line = placeLine(workspace);
  const lines = text.split('\n');
  const at = lines.findIndex(candidate => candidate.startsWith('**Place** ('));
  if (at >= 0 && lines[at] === line) continue;
  if (!update) {
    stale += 1;
    console.error(
      `check-places: ${relative(root, path)}: ${at >= 0 ? 'the Place line is stale' : 'no Place line'} (node scripts/check-places.mjs --update)`,
    );
    continue;
  }
  if (at >= 0) lines[at] = line;
  else {
    // after the title and the first paragraph
    const title = lines.findIndex(candidate => candidate.startsWith('# '));
    let end = title + 1;
    while (end < lines.length && lines[end].trim() === '') end += 1;
    while (end < lines.length && lines[end].trim() !== '') end += 1;
    lines.splice(end, 0, '', line);
  }
  writeFileSync(path, lines.join('\n'));
}
if (stale > 0) process.exit(1);
console.log(`check-places: ${all.length} READMEs say where their package sits`);
