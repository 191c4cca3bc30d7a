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
// The layer graph of docs/architecture.md (the `flowchart BT` block), drawn from the same manifests.
const short = name => name.replace('@osharm/', '');
const node = workspace =>
  workspace.group === 'apps' ? workspace.name : short(workspace.manifest.name);
const graph = ['```mermaid', 'flowchart BT'];
for (const workspace of [...all].sort(
  (a, b) => a.group.localeCompare(b.group) || a.name.localeCompare(b.name),
)) {
  const imports = ours(workspace.manifest.dependencies).map(short).sort();
  const optional = ours(workspace.manifest.peerDependencies)
    .map(short)
    .filter(name => !imports.includes(name))
    .sort();
  if (imports.length > 0) graph.push(`  ${node(workspace)} --> ${imports.join(' & ')}`);
  if (optional.length > 0)
    graph.push(`  ${node(workspace)} -. optional peer, lazy .-> ${optional.join(' & ')}`);
}
graph.push('```');
const mapPath = join(root, 'docs', 'architecture.md');
const mapText = readFileSync(mapPath, 'utf8');
const start = mapText.indexOf('```mermaid\nflowchart BT');
const end = mapText.indexOf('```', start + 3) + 3;
if (start < 0) {
  stale += 1;
  console.error('check-places: docs/architecture.md has no `flowchart BT` layer graph');
} else if (mapText.slice(start, end) !== graph.join('\n')) {
  if (update)
    writeFileSync(mapPath, mapText.slice(0, start) + graph.join('\n') + mapText.slice(end));
  else {
    stale += 1;
    console.error(
      'check-places: docs/architecture.md: the layer graph is stale (node scripts/check-places.mjs --update)',
    );
  }
}
if (stale > 0) process.exit(1);
console.log(
  `check-places: ${all.length} READMEs say where their package sits; the layer graph matches the manifests`,
);
