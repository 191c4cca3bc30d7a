import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // The evidence tests run real shell commands against a home directory.
    testTimeout: 30_000,
  },
});
