import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Real loopback servers and batches of 60+ trajectories: 5 s is too tight on a loaded 2-core CI.
    testTimeout: 30_000,
  },
});
