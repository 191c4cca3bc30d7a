#!/usr/bin/env node
// The import rules of docs/architecture.md, checked on every workspace's manifest and on the
// imports of its source files (tests included, except where a rule says otherwise):
//   - no app imports another app, and no package or tool imports an app;
//   - only the model layer (@osharm/models) imports a vendor SDK in its code (tools/model-stand-in,
//     the loopback vendor servers, may use the SDKs in its own tests);
//   - judge, models, model-spec and metrics never import desktop-env, a VM provider or agent;
//   - the pairs in FORBIDDEN never import each other's way.
// Prints one line per violation (file, what it imports, which rule) and exits 1; else one summary line.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workspaces as listWorkspaces } from './workspaces.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const VENDOR_SDKS = ['openai', '@anthropic-ai/sdk', '@google/genai'];
const MODEL_LAYER = new Set(['@osharm/models']);
const VM_SIDE = ['@osharm/desktop-env', '@osharm/agent', '@osharm/runner'];
const isVmSide = name => VM_SIDE.includes(name) || name.startsWith('@osharm/vm-');
const JUDGE_SIDE = new Set([
  '@osharm/judge',
  '@osharm/models',
  '@osharm/model-spec',
  '@osharm/metrics',
]);
/** [importer, imported, why]: an extra edge that must not exist. */
const FORBIDDEN = [
  ['@osharm/runner', '@osharm/judge-cli', 'the runner reaches endpoints through @osharm/models'],
  [
    '@osharm/vm-container',
    '@osharm/vm-local',
    'the guest server is shared through its own package',
  ],
];
/** Edges that exist today and are scheduled to go; each is reported as a note, not a failure. */
const PENDING = new Set((process.env.OSHARM_BOUNDARY_PENDING ?? '').split(',').filter(Boolean));

const workspaces = listWorkspaces(root);
const apps = new Set(workspaces.filter(ws => ws.group === 'apps').map(ws => ws.manifest.name));

/** Every source file under a workspace's src/, bench/ and bin/ (not dist, not node_modules). */
function sources(dir) {
  const out = [];
  const walk = at => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) out.push(path);
    }
  };
  for (const sub of ['src', 'bench', 'bin']) {
    try {
      if (statSync(join(dir, sub)).isDirectory()) walk(join(dir, sub));
    } catch {
      /* absent */
    }
  }
  return out;
}

const importPattern =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"./][^'"]*)['"]/g;
/** The package an import specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = spec =>
  spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];

const violations = [];
const notes = new Set();
const report = (file, imported, rule) =>
  violations.push(`${relative(root, file)}: imports ${imported} — ${rule}`);

for (const ws of workspaces) {
  const name = ws.manifest.name;
  const declared = Object.keys({
    ...ws.manifest.dependencies,
    ...ws.manifest.devDependencies,
    ...ws.manifest.peerDependencies,
    ...ws.manifest.optionalDependencies,
  });
  const edges = declared.map(dep => ({
    file: join(ws.dir, 'package.json'),
    imported: dep,
    test: false,
  }));
  for (const file of sources(ws.dir)) {
    const text = readFileSync(file, 'utf8');
    const test = /\.test\.ts$|\/__fixtures__\/|\/test\//.test(file);
    for (const match of text.matchAll(importPattern)) {
      edges.push({ file, imported: packageOf(match[1]), test });
    }
  }
  for (const { file, imported, test } of edges) {
    if (imported === name) continue;
    if (apps.has(imported)) {
      report(
        file,
        imported,
        ws.group === 'apps' ? 'no app imports another app' : 'packages never import apps',
      );
    }
    // A manifest may name an SDK so that installing the package installs it (agent → @google/genai,
    // which @osharm/models loads lazily); only code importing it breaks the rule.
    if (
      VENDOR_SDKS.includes(imported) &&
      !MODEL_LAYER.has(name) &&
      !file.endsWith('package.json')
    ) {
      const standInTest = name === '@osharm/model-stand-in' && test;
      if (!standInTest)
        report(file, imported, 'only the model layer (@osharm/models) imports a vendor SDK');
    }
    if (JUDGE_SIDE.has(name) && isVmSide(imported)) {
      report(
        file,
        imported,
        `${name} must not pull VM or agent code (a judge user installs it alone)`,
      );
    }
    for (const [from, to, why] of FORBIDDEN) {
      if (name !== from || imported !== to) continue;
      if (PENDING.has(`${from}>${to}`)) notes.add(`${from} → ${to} (pending: ${why})`);
      else report(file, imported, why);
    }
  }
}

for (const note of notes) console.log(`check-boundaries: note: ${note}`);
if (violations.length > 0) {
  for (const line of violations) console.error(line);
  console.error(`check-boundaries: ${violations.length} import rule violation(s)`);
  process.exit(1);
}
console.log(`check-boundaries: ${workspaces.length} workspaces, import rules hold`);
