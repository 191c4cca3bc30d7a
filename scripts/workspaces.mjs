// The repository's workspaces, read from their manifests: one home for the scripts that walk them
// (check-boundaries, check-surfaces, check-packages, check-tarballs).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every workspace under `groups` (directories with a package.json), sorted by group then name:
 * `{ dir, group, name (directory), manifest }`.
 */
export function workspaces(root, groups = ['apps', 'packages', 'tools']) {
  return groups.flatMap(group =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter(
        entry => entry.isDirectory() && existsSync(join(root, group, entry.name, 'package.json')),
      )
      .map(entry => entry.name)
      .sort()
      .map(name => {
        const dir = join(root, group, name);
        const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
        return { dir, group, name, manifest };
      }),
  );
}

/** The packages published to npm: packages/* whose manifest is not private. */
export function publishedPackages(root) {
  return workspaces(root, ['packages']).filter(workspace => !workspace.manifest.private);
}
