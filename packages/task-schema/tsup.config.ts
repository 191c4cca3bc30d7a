import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync('./package.json', 'utf8')) as { version: string };

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    artifacts: 'src/artifacts.ts',
    trajectory: 'src/trajectory/index.ts',
    internal: 'src/internal.ts',
  },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node22',
  define: { __PACKAGE_VERSION__: JSON.stringify(version) },
});
