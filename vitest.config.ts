import { defineConfig } from 'vitest/config';

/**
 * Three projects, all run by `npm test`: `sqlite` runs every test on SQLite, `postgres` runs again the
 * tests that touch a store, on PostgreSQL, and `queue-postgres` the service's tests with the queue on
 * PostgreSQL too (127.0.0.1:5432, database `test`; each test gets a schema
 * of its own, see test/support/store.ts). One of them alone: `vitest run --project postgres`.
 */
/**
 * Which project runs a file is decided here, and only here: a test file never skips itself for the
 * store or the queue it runs on (test/unit/layout.test.ts holds it). A file about one store's own
 * behaviour or about the CLI itself runs in the one project it is about.
 */

/** About SQLite itself (its file, its WAL, a full disk under it), or the CLI's own words: once, on SQLite. */
export const sqliteOnly = [
  'test/faults/disk-full.test.ts',
  'test/faults/disk-full-service.test.ts',
  'test/integration/backup.test.ts',
  'test/integration/sqlite-page-cache.test.ts',
  'test/integration/built-cli.test.ts',
  'test/integration/clone.test.ts',
  'test/integration/cli-completion.test.ts',
  'test/integration/cli-config.test.ts',
  'test/integration/cli-hints.test.ts',
  'test/integration/cli-invocation.test.ts',
  'test/integration/cli-logs.test.ts',
  'test/integration/cli-messages.test.ts',
  'test/integration/cli-version.test.ts',
  'test/integration/docs-claims.test.ts',
];

/** About PostgreSQL itself (its URLs and their passwords, several hosts on one database): not on SQLite. */
export const postgresOnly = [
  'test/faults/url-password.test.ts',
  'test/faults/multi-host.test.ts',
  'test/faults/postgres-connection-lost.test.ts',
];

/** The queue on PostgreSQL under its faults: only where the queue is on PostgreSQL. */
export const queuePostgresOnly = ['test/faults/postgres-queue.test.ts'];

/** The tests that touch a store: the integration tests (but the simulator's and the HTTP client's own), the faults. */
const storeTests = {
  include: ['test/integration/**/*.test.ts', 'test/faults/**/*.test.ts', 'test/unit/metrics-docs.test.ts'],
  exclude: [
    // Redis refusing writes or a TLS handshake is under test, not the store: once (sqlite) is enough.
    'test/faults/redis-answers.test.ts',
    'test/faults/redis-tls.test.ts',
    'test/integration/simulator/**',
    'test/integration/upstream/**',
    'test/integration/exports-download.test.ts',
    'test/integration/download-guard.test.ts',
    // The demo is SQLite by nature: one file, nothing to run.
    'test/integration/service/demo.test.ts',
    // The flood is aimed at the HTTP server and the event loop, not the store.
    'test/integration/service/metrics-flood.test.ts',
    // A PostgreSQL of its own (with TLS) whatever the project: once is enough.
    'test/integration/tls.test.ts',
    // The queue's failover is under test, not the store.
    'test/faults/sentinel-failover.test.ts',
    // The traced run is on SQLite by definition (docs/development.md's path of one run).
    'test/integration/trace-run.test.ts',
    ...sqliteOnly,
    ...queuePostgresOnly,
  ],
};

/**
 * The service's tests, again with the queue on PostgreSQL (QUEUE_URL=postgres://…, no Redis), the store
 * on PostgreSQL too: what `start` runs with PostgreSQL alone (test/support/queue.ts).
 */
export const queueTests = [
  'test/integration/service/scheduling.test.ts',
  'test/integration/service/budget.test.ts',
  'test/integration/service/failures.test.ts',
  'test/integration/service/status-service.test.ts',
  'test/integration/service/queue-flush.test.ts',
  'test/faults/shutdown.test.ts',
  'test/faults/multi-host.test.ts',
  ...queuePostgresOnly,
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests share one Redis and bind ports; forks keep native handles (better-sqlite3) isolated.
    pool: 'forks',
    // Two files at a time, even on 2 cores (vitest's default would be cores − 1 = 1): most tests wait on
    // child processes, timers and sockets, not the CPU. On this project's 2-core machine the suite took
    // 16 min with two, 25 min with one, at the same load; more than two is not tried here.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        // The soak runs for minutes: the fault suite runs it (vitest.faults.config.ts), npm test does not.
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          exclude: ['test/soak/**', ...postgresOnly, ...queuePostgresOnly],
          env: { STORE: 'sqlite' },
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: storeTests.include,
          exclude: storeTests.exclude,
          env: { STORE: 'postgres' },
          globalSetup: ['test/support/postgres-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'queue-postgres',
          include: queueTests,
          env: { STORE: 'postgres', QUEUE: 'postgres' },
          globalSetup: ['test/support/postgres-setup.ts'],
        },
      },
    ],
  },
});
