import { defineConfig } from 'tsup';

export default defineConfig({
  // The osharm-batch-judge command; the command itself is @osharm/judge-cli.
  entry: { bin: 'src/bin.ts' },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node22',
});
