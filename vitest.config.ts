import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Child processes run bin/, which runs dist/: build it once up front when the sources changed.
    globalSetup: ['test/helpers/build-dist.ts'],
  },
});
