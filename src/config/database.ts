/**
 * Where the collected data goes: a SQLite file (`DATABASE_PATH`, the default) or a PostgreSQL
 * database (`DATABASE_URL`), for workers on several hosts. The URL holds a password: print
 * `printableDatabaseLocation`, never the URL itself.
 */
import { resolve } from 'node:path';
import type { StoreLocation } from '../store/sql.js';
import { ConfigError } from './errors.js';
import { maskUrlPassword } from './url-password.js';

export type DatabaseConfig =
  | {
      kind: 'sqlite';
      /** Absolute (DATABASE_PATH resolved against the working directory). */
      path: string;
    }
  | {
      kind: 'postgres';
      /** As given, password included: never print it. */
      url: string;
      /** Connections of the pool, per process. @defaultValue 10 */
      poolSize: number;
    };

/** True for a `postgres://` or `postgresql://` URL (DATABASE_URL), false for a SQLite path. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** A PostgreSQL URL with its password replaced by `***` (for logs, errors, `status`). */
export function maskDatabaseUrl(url: string): string {
  // Not a URL: hide whatever sits between "://user:" and "@".
  return maskUrlPassword(url) ?? url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

/** A store given on the command line (`migrate-store --from/--to`): a postgres:// URL, else a SQLite path. */
export function storeLocation(text: string): StoreLocation {
  return isPostgresUrl(text)
    ? { kind: 'postgres', url: text, printable: maskDatabaseUrl(text) }
    : { kind: 'sqlite', path: text };
}

/** True for the URLs that select PostgreSQL: `postgres://` or `postgresql://`, and a parsable URL. */
export function isDatabaseUrl(text: string): boolean {
  return isPostgresUrl(text) && URL.canParse(text);
}

/** DATABASE_URL as an error message may show it: the password masked, even in a malformed value. */
export function maskDatabaseUrlSetting(value: string): string {
  if (isDatabaseUrl(value)) return maskDatabaseUrl(value);
  // Not a URL we read: hide whatever sits between the scheme and the last `@`.
  return value.replace(
    /^([a-z][a-z0-9+.-]*:\/\/)?[^/]*@/i,
    (_m, scheme: string | undefined) => `${scheme ?? ''}***@`,
  );
}

/**
 * The database of the validated environment. `explicit` is the environment as given (before the
 * defaults): DATABASE_PATH has a default, so only the raw environment says whether it was set.
 */
export function resolveDatabase(
  e: { DATABASE_URL?: string | undefined; DATABASE_PATH: string; DATABASE_POOL_SIZE: number },
  explicit: Readonly<Record<string, string | undefined>>,
  cwd: string,
): DatabaseConfig {
  if (e.DATABASE_URL === undefined) return { kind: 'sqlite', path: resolve(cwd, e.DATABASE_PATH) };
  if (explicit.DATABASE_PATH !== undefined) {
    throw new ConfigError(
      `Set DATABASE_URL (PostgreSQL) or DATABASE_PATH (SQLite), not both: DATABASE_URL = "${maskDatabaseUrl(e.DATABASE_URL)}", DATABASE_PATH = "${explicit.DATABASE_PATH}"`,
    );
  }
  return { kind: 'postgres', url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE };
}

/** What `openStore` takes: the SQLite path, or the PostgreSQL URL (with its password) and its printable form. */
export function databaseLocation(config: { database: DatabaseConfig }): StoreLocation {
  const db = config.database;
  return db.kind === 'postgres'
    ? { kind: 'postgres', url: db.url, printable: maskDatabaseUrl(db.url) }
    : { kind: 'sqlite', path: db.path };
}

/** The location as logs, errors and `status` show it: the PostgreSQL URL's password masked. */
export function printableDatabaseLocation(config: { database: DatabaseConfig }): string {
  const db = config.database;
  return db.kind === 'postgres' ? maskDatabaseUrl(db.url) : db.path;
}

/** The environment variable that chose the database, for messages. */
export function databaseSetting(config: { database: DatabaseConfig }): 'DATABASE_URL' | 'DATABASE_PATH' {
  return config.database.kind === 'postgres' ? 'DATABASE_URL' : 'DATABASE_PATH';
}

/** The database as `config check` prints it. */
export function describeDatabase(database: DatabaseConfig): Record<string, unknown> {
  return database.kind === 'postgres' ? { ...database, url: maskDatabaseUrl(database.url) } : database;
}
