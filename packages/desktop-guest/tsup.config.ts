import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync('./package.json', 'utf8')) as { version: string };

export default defineConfig([
  {
    entry: ['src/index.ts'],
    format: ['esm'],
    dts: true,
    sourcemap: true,
    clean: false,
    target: 'node22',
    define: { __PACKAGE_VERSION__: JSON.stringify(version) },
  },
  {
    // The guest server runs inside the desktop (a sandbox, a container or a VM image), where only this
    // package directory and the node binary are present: bundle its one dependency (busboy) so it
    // needs nothing else.
    entry: ['src/guest-server-bin.ts'],
    format: ['esm'],
    dts: false,
    sourcemap: true,
    clean: false,
    target: 'node22',
    noExternal: ['busboy'],
    banner: {
      js: "import { createRequire as __osharmCreateRequire } from 'node:module'; const require = __osharmCreateRequire(import.meta.url);",
    },
    define: { __PACKAGE_VERSION__: JSON.stringify(version) },
  },
]);
