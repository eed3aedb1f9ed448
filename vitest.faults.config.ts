import { defineConfig } from 'vitest/config';
import { postgresOnly, queuePostgresOnly, queueTests, sqliteOnly } from './vitest.config.js';

/**
 * `npm run test:faults`: the full fault-injection suite (test/faults/), with every iteration the
 * issue asks for, on both stores. `npm test` runs the same files with fewer iterations (see
 * test/faults/support.ts). It also runs a short soak (test/soak/soak.test.ts, 2.5 min per store;
 * `npm run test:soak` is the long one).
 */
export default defineConfig({
  test: {
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/faults/**/*.test.ts', 'test/soak/**/*.test.ts'],
          exclude: [...postgresOnly, ...queuePostgresOnly],
          env: { FAULT_SUITE: 'full', STORE: 'sqlite' },
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/faults/**/*.test.ts', 'test/soak/**/*.test.ts'],
          exclude: [...sqliteOnly, ...queuePostgresOnly],
          env: { FAULT_SUITE: 'full', STORE: 'postgres' },
          globalSetup: ['test/support/postgres-setup.ts'],
        },
      },
      {
        extends: true,
        // PostgreSQL alone: store and queue (QUEUE_URL), no Redis.
        test: {
          name: 'queue-postgres',
          include: [...queueTests.filter((f) => f.startsWith('test/faults/')), 'test/soak/**/*.test.ts'],
          env: { FAULT_SUITE: 'full', STORE: 'postgres', QUEUE: 'postgres' },
          globalSetup: ['test/support/postgres-setup.ts'],
        },
      },
    ],
  },
});
