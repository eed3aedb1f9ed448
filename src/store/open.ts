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
  let sqlite: Database.Database | undefined;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    sqlite = new Database(path);
    // WAL lets readers (Grafana, ad-hoc SQL) query while the collector writes; NORMAL sync is durable
    // across application crashes in WAL mode, and loses at most the last commits on power loss.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    sqlite.pragma('foreign_keys = ON');
  } catch (cause) {
    sqlite?.close();
    throw new DatabaseOpenError(path, cause);
  }
  const db = drizzle(sqlite, { schema });
  if (options.migrate ?? true) {
    try {
      migrateOnce(db);
    } catch (cause) {
      sqlite.close();
      throw new DatabaseOpenError(path, cause);
    }
  }
  return {
    path,
    sqlite,
    db,
    transaction: (fn) => {
      try {
        return sqlite.transaction(fn).immediate();
      } catch (err) {
        // SQLite's own messages ("database or disk is full") do not say which file.
        if (isSqliteError(err)) throw new DatabaseWriteError(path, err);
        throw err;
      }
    },
    close: () => sqlite.close(),
  };
}

/**
 * The database file could not be opened, read as SQLite, or migrated. The message names the path and
 * what to check; `createApp` adds the setting it came from.
 */
export class DatabaseOpenError extends Error {
  override readonly name = 'DatabaseOpenError';
  constructor(
    readonly path: string,
    cause: unknown,
    /** The setting the path came from, e.g. `DATABASE_PATH`. */
    setting?: string,
  ) {
    const where = setting
      ? `${setting} = "${path}": cannot open the database`
      : `cannot open the database "${path}"`;
    super(`${where}: ${databaseProblem(cause)}`, { cause });
  }
}

/** A write transaction failed inside SQLite (disk full, read-only file, lock held too long...). */
export class DatabaseWriteError extends Error {
  override readonly name = 'DatabaseWriteError';
  /** SQLite's result code, e.g. `SQLITE_FULL`. */
  readonly code: string;
  constructor(
    readonly path: string,
    cause: Error & { code: string },
  ) {
    super(`cannot write the database "${path}": ${databaseProblem(cause)}`, { cause });
    this.code = cause.code;
  }
}

function isSqliteError(err: unknown): err is Error & { code: string } {
  const code: unknown = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('SQLITE_');
}

function databaseProblem(cause: unknown): string {
  const code = (cause as { code?: string }).code;
  const message = cause instanceof Error ? cause.message : String(cause);
  switch (code) {
    case 'SQLITE_CANTOPEN':
      return `${message} (does its directory exist and is it writable, and is the path a file?)`;
    case 'SQLITE_NOTADB':
      return `${message} (the file exists but is not a SQLite database: a wrong path?)`;
    case 'SQLITE_READONLY':
      return `${message} (the file or its directory is read-only)`;
    case 'SQLITE_FULL':
      return `${message} (SQLITE_FULL: free space on its disk; what was committed before is intact)`;
    case 'SQLITE_BUSY':
      return `${message} (SQLITE_BUSY: another process held the database longer than the busy timeout)`;
    default:
      return code ? `${message} (${code})` : message;
  }
}

/**
 * Applies pending migrations. Drizzle reads the last applied migration before its transaction, so two
 * processes opening a new database at once (a worker and a `run`) can both try to apply the same
 * one; the loser fails on "already exists" after the winner committed, and a second pass, reading
 * the migrations table again, finds nothing left to do.
 */
function migrateOnce(db: BetterSQLite3Database<typeof schema>): void {
  try {
    migrate(db, { migrationsFolder: migrationsFolder() });
  } catch (err) {
    let e: unknown = err;
    while (e instanceof Error && !/already exists/.test(e.message)) e = e.cause;
    if (!(e instanceof Error)) throw err;
    migrate(db, { migrationsFolder: migrationsFolder() });
  }
}

/** drizzle/ at the package root. */
export function migrationsFolder(): string {
  return join(packageRoot(), 'drizzle');
}
