import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// No app imports another (issue 11): what two apps share lives in a package under packages/.
const appsDir = fileURLToPath(new URL('../..', import.meta.url));
const manifests = readdirSync(appsDir, { withFileTypes: true })
  .filter(entry => entry.isDirectory())
  .map(entry => {
    const manifest = JSON.parse(
      readFileSync(join(appsDir, entry.name, 'package.json'), 'utf8'),
    ) as {
      name: string;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    return { dir: entry.name, manifest };
  });

describe('app boundaries', () => {
  it('finds the apps', () => {
    expect(manifests.map(app => app.manifest.name)).toEqual(
      expect.arrayContaining(['@osharm/cli', '@osharm/batch-judge']),
    );
  });

  it.each(manifests.map(app => [app.dir, app.manifest] as const))(
    'apps/%s depends on no other app',
    (_dir, manifest) => {
      const appNames = new Set(manifests.map(app => app.manifest.name));
      appNames.delete(manifest.name);
      const declared = Object.keys({
        ...manifest.dependencies,
        ...manifest.devDependencies,
        ...manifest.peerDependencies,
        ...manifest.optionalDependencies,
      });
      expect(declared.filter(name => appNames.has(name))).toEqual([]);
    },
  );
});
