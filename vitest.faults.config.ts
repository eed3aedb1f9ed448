import { defineConfig } from 'vitest/config';

/**
 * `npm run test:faults`: the full fault-injection suite (test/faults/), with every iteration the
 * issue asks for. `npm test` runs the same files with fewer iterations (see test/faults/support.ts).
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    env: { FAULT_SUITE: 'full' },
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
