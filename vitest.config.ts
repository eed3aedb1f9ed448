import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests share one Redis and bind ports; forks keep native handles (better-sqlite3) isolated.
    pool: 'forks',
  },
});
