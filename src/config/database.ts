/**
 * Where the collected data goes: a SQLite file (`DATABASE_PATH`, the default) or a PostgreSQL
 * database (`DATABASE_URL`), for workers on several hosts. The URL holds a password: print
 * `printableDatabaseLocation`, never the URL itself.
 */
import { resolve } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import * as z from 'zod';
import type { StoreLocation } from '../store/sql.js';
import { type ClientTls, clientTlsVars, printableClientTls, readClientTls } from './client-tls.js';
import { ConfigError } from './errors.js';
import { maskPasswordParameters, maskUrlPassword } from './url-password.js';

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
      /** DATABASE_TLS_*_FILE, read; undefined: TLS as the URL's `sslmode` says. */
      tls?: ClientTls | undefined;
      /** node-postgres's `ssl` built from `tls` and the URL's sslmode (`postgresSsl`). */
      ssl?: ConnectionOptions | undefined;
    };

/** The TLS variables of PostgreSQL, spread into the loader's environment schema. */
export const databaseTlsEnvShape = {
  DATABASE_TLS_CA_FILE: z.string().min(1).optional(),
  DATABASE_TLS_CERT_FILE: z.string().min(1).optional(),
  DATABASE_TLS_KEY_FILE: z.string().min(1).optional(),
};

/** The URL's parameters that node-postgres turns into its `ssl` option (pg-connection-string). */
const SSL_PARAMETERS = ['ssl', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'uselibpqcompat'];

/**
 * node-postgres's `ssl` for DATABASE_URL (or a `postgres://` QUEUE_URL: `variable`) with the
 * DATABASE_TLS_* files: the server's certificate
 * verified against the CA file, and its host name too (`verify-full`, the default and what
 * `require`/`prefer` mean here) unless the URL says `sslmode=verify-ca`. A mode that would not
 * verify (`disable`, `no-verify`), or files named in the URL too, is refused: the CA file would be
 * silently unused.
 */
export function postgresSsl(url: string, tls: ClientTls, variable = 'DATABASE_URL'): ConnectionOptions {
  const params = new URL(url).searchParams;
  const mode = params.get('sslmode');
  const shown = maskDatabaseUrl(url);
  if (
    mode === 'disable' ||
    mode === 'no-verify' ||
    params.get('ssl') === '0' ||
    params.get('ssl') === 'false'
  ) {
    throw new ConfigError(
      `DATABASE_TLS_* files are set but ${variable} = "${shown}" turns verification off (${mode ? `sslmode=${mode}` : 'ssl=false'}): remove that parameter, or the files`,
    );
  }
  const inUrl = ['sslrootcert', 'sslcert', 'sslkey'].filter((p) => params.has(p));
  if (inUrl.length > 0) {
    throw new ConfigError(
      `${variable} = "${shown}" names TLS files (${inUrl.join(', ')}) and DATABASE_TLS_* files are set too: give them one way (the variables read them with a size bound)`,
    );
  }
  return {
    rejectUnauthorized: true,
    ...(tls.ca && { ca: tls.ca }),
    ...(tls.cert && { cert: tls.cert }),
    ...(tls.key && { key: tls.key }),
    // verify-ca: the chain is checked, the host name is not (as libpq's verify-ca).
    ...(mode === 'verify-ca' && { checkServerIdentity: () => undefined }),
  };
}

/**
 * DATABASE_URL without the parameters `postgresSsl` replaced: node-postgres lets a connection
 * string's `sslmode` override the `ssl` option given beside it.
 */
export function withoutSslParameters(url: string): string {
  const parsed = new URL(url);
  for (const p of SSL_PARAMETERS) parsed.searchParams.delete(p);
  return parsed.toString();
}

/** The DATABASE_TLS_* files, read and checked (client-tls.ts); undefined when none is set. */
export function readDatabaseTls(
  e: z.output<z.ZodObject<typeof databaseTlsEnvShape>>,
  cwd: string,
): ClientTls | undefined {
  return readClientTls(
    { ca: e.DATABASE_TLS_CA_FILE, cert: e.DATABASE_TLS_CERT_FILE, key: e.DATABASE_TLS_KEY_FILE },
    clientTlsVars('DATABASE_TLS'),
    cwd,
  );
}

/** True for a `postgres://` or `postgresql://` URL (DATABASE_URL), false for a SQLite path. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** A PostgreSQL URL with its password replaced by `***` (for logs, errors, `status`). */
export function maskDatabaseUrl(url: string): string {
  // Not a URL: hide whatever sits between "://user:" and "@", and the password parameters' values.
  return maskUrlPassword(url) ?? maskPasswordParameters(url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@'));
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
  // Not a URL we read: hide whatever sits between the scheme and the last `@`, and the password parameters' values.
  return maskPasswordParameters(
    value.replace(
      /^([a-z][a-z0-9+.-]*:\/\/)?[^/]*@/i,
      (_m, scheme: string | undefined) => `${scheme ?? ''}***@`,
    ),
  );
}

/**
 * The database of the validated environment. `explicit` is the environment as given (before the
 * defaults): DATABASE_PATH has a default, so only the raw environment says whether it was set.
 */
export function resolveDatabase(
  e: {
    DATABASE_URL?: string | undefined;
    DATABASE_PATH: string;
    DATABASE_POOL_SIZE: number;
    QUEUE_URL?: string | undefined;
  } & z.output<z.ZodObject<typeof databaseTlsEnvShape>>,
  explicit: Readonly<Record<string, string | undefined>>,
  cwd: string,
): DatabaseConfig {
  const tlsFiles = {
    ca: e.DATABASE_TLS_CA_FILE,
    cert: e.DATABASE_TLS_CERT_FILE,
    key: e.DATABASE_TLS_KEY_FILE,
  };
  if (e.DATABASE_URL === undefined) {
    const set = Object.entries(clientTlsVars('DATABASE_TLS'))
      .filter(([k]) => tlsFiles[k as keyof typeof tlsFiles] !== undefined)
      .map(([, v]) => v);
    // The queue on PostgreSQL reads them too (resolveQueue).
    if (set.length > 0 && !(e.QUEUE_URL !== undefined && isPostgresUrl(e.QUEUE_URL))) {
      throw new ConfigError(
        `${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} for PostgreSQL, but neither DATABASE_URL nor a postgres:// QUEUE_URL is set (the store is the SQLite file ${e.DATABASE_PATH})`,
      );
    }
    return { kind: 'sqlite', path: resolve(cwd, e.DATABASE_PATH) };
  }
  if (explicit.DATABASE_PATH !== undefined) {
    throw new ConfigError(
      `Set DATABASE_URL (PostgreSQL) or DATABASE_PATH (SQLite), not both: DATABASE_URL = "${maskDatabaseUrl(e.DATABASE_URL)}", DATABASE_PATH = "${explicit.DATABASE_PATH}"`,
    );
  }
  const tls = readDatabaseTls(e, cwd);
  return {
    kind: 'postgres',
    url: e.DATABASE_URL,
    poolSize: e.DATABASE_POOL_SIZE,
    ...(tls && { tls, ssl: postgresSsl(e.DATABASE_URL, tls) }),
  };
}

/** What `openStore` takes: the SQLite path, or the PostgreSQL URL (with its password) and its printable form. */
export function databaseLocation(config: { database: DatabaseConfig }): StoreLocation {
  const db = config.database;
  return db.kind === 'postgres'
    ? {
        kind: 'postgres',
        // With the TLS files, `ssl` says it all: the URL's sslmode would override it in node-postgres.
        url: db.ssl ? withoutSslParameters(db.url) : db.url,
        printable: maskDatabaseUrl(db.url),
      }
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
  if (database.kind !== 'postgres') return database;
  const { ssl: _ssl, tls, ...rest } = database;
  return { ...rest, url: maskDatabaseUrl(database.url), ...(tls && { tls: printableClientTls(tls) }) };
}
