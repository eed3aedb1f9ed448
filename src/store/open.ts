import type { ConnectionOptions } from 'node:tls';
import type { MigrationListener } from './migrations.js';
import type { Store, StoreLocation } from './sql.js';
import { openSqliteStore } from './sqlite.js';

export interface OpenStoreOptions {
  /** Apply pending migrations (start-up and `migrate`). @defaultValue true */
  migrate?: boolean;
  /** SQLite: how long a writer waits for another process's lock. @defaultValue 5000 ms */
  busyTimeoutMs?: number;
  /** PostgreSQL: connections of the pool. @defaultValue 10 */
  poolSize?: number;
  /** PostgreSQL: told errors of idle pooled connections (the pool replaces them). */
  onIdleError?: (err: Error) => void;
  /** PostgreSQL: TLS with the DATABASE_TLS_* files (src/config/database.ts `postgresSsl`). */
  ssl?: ConnectionOptions | undefined;
  /** Told the migrations about to be applied, before the first: `migrate` prints them, `start` logs them. */
  onMigrations?: MigrationListener | undefined;
}

/** Opens the store at `location` and migrates it: a PostgreSQL database, or a SQLite file (created if needed). */
export async function openStore(location: StoreLocation, options: OpenStoreOptions = {}): Promise<Store> {
  if (location.kind === 'postgres') {
    // pg is loaded when a PostgreSQL store is opened: loading it costs every command (its stream
    // module wakes Node's fetch up), and SQLite is the default.
    const { openPostgresStore } = await import('./postgres.js');
    return openPostgresStore(location.url, location.printable, options);
  }
  return openSqliteStore(location.path, options);
}
