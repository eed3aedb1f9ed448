import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { packageRoot } from '../package-root.js';
import * as schema from './schema.js';

export interface Store {
  readonly path: string;
  /** The raw connection, for the prepared statements of the hot paths. */
  readonly sqlite: Database.Database;
  readonly db: BetterSQLite3Database<typeof schema>;
  /** Runs `fn` in one SQLite transaction (BEGIN IMMEDIATE): all of it commits, or none. */
  transaction<T>(fn: () => T): T;
  close(): void;
}

export interface OpenStoreOptions {
  /** Apply pending migrations from drizzle/ (start-up and `migrate`). @defaultValue true */
  migrate?: boolean;
  /** How long a writer waits for another's lock. @defaultValue 5000 ms */
  busyTimeoutMs?: number;
}

/** Opens (creating if needed) the SQLite database with WAL and a busy timeout, and migrates it. */
export function openStore(path: string, options: OpenStoreOptions = {}): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path);
  // WAL lets readers (Grafana, ad-hoc SQL) query while the collector writes; NORMAL sync is durable
  // across application crashes in WAL mode, and loses at most the last commits on power loss.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  sqlite.pragma('foreign_keys = ON');
  const db = drizzle(sqlite, { schema });
  if (options.migrate ?? true) migrate(db, { migrationsFolder: migrationsFolder() });
  return {
    path,
    sqlite,
    db,
    transaction: (fn) => sqlite.transaction(fn).immediate(),
    close: () => sqlite.close(),
  };
}

/** drizzle/ at the package root. */
export function migrationsFolder(): string {
  return join(packageRoot(), 'drizzle');
}
