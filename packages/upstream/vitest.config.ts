import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Loopback servers and real files: 5 s is too tight on a loaded 2-core CI.
    testTimeout: 30_000,
  },
});
