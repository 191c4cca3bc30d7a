import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Every stand-in vmrun call starts a Node process: leave room on a loaded machine.
    testTimeout: 20_000,
  },
});
