import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // The integration suite starts a real guest server on a real X display.
    testTimeout: 60_000,
  },
});
