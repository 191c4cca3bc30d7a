import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/parts.ts', 'src/internal.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node22',
});
