import type { ConnectionOptions } from 'node:tls';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { DatabaseOpenError } from './errors.js';
import { MAX_CACHED_STATEMENTS, numberPlaceholders, type Sql, type Store } from './sql.js';
import { migrationsFolder } from './sqlite.js';

export interface OpenPostgresOptions {
  /** Apply pending migrations from drizzle/postgres/ (start-up and `migrate`). @defaultValue true */
  migrate?: boolean;
  /** Connections of the pool. @defaultValue 10 */
  poolSize?: number;
  /** Told errors of idle pooled connections (a restart of the server): the pool replaces them. */
  onIdleError?: (err: Error) => void;
  /** TLS with the operator's CA and client certificate (`url` then holds no sslmode: it would win). */
  ssl?: ConnectionOptions | undefined;
}

/** Where the migrations table lives: the schema the tables are created in (first of the search_path). */
const MIGRATIONS_TABLE = '__drizzle_migrations';

/**
 * Values as the SQLite store returns them (sql.ts): int8 (counts, ids, Unix times) as numbers (all of
 * ours fit in 2^53), timestamptz as ISO-8601 UTC text, json/jsonb as their text; numeric stays the
 * exact decimal string node-postgres gives.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    switch (oid) {
      case pg.types.builtins.INT8:
        return (value: string) => Number(value);
      case pg.types.builtins.TIMESTAMPTZ:
      case pg.types.builtins.TIMESTAMP:
        return (value: string) =>
          new Date(/[+-]\d\d(:\d\d)?$/.test(value) ? value : `${value}Z`).toISOString();
      case pg.types.builtins.JSON:
      case pg.types.builtins.JSONB:
        return (value: string) => value;
      default:
        return pg.types.getTypeParser(oid, format ?? 'text');
    }
  }) as typeof pg.types.getTypeParser,
};

/**
 * Connects a pool to the PostgreSQL of `url` and migrates its schema (the search_path's first
 * schema: `?options=-c%20search_path%3Dcollector` picks another than `public`).
 */
export async function openPostgresStore(
  url: string,
  /** The URL with its password masked: what errors and `status` show. */
  location: string,
  options: OpenPostgresOptions = {},
): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: url,
    ...(options.ssl && { ssl: options.ssl }),
    max: options.poolSize ?? 10,
    types,
    // A connection that cannot be made in 10 s fails the statement (and the run) instead of hanging.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    application_name: 'glacier-collector',
  });
  // An idle client whose server went away emits here; unhandled, it would crash the process.
  pool.on('error', (err) => options.onIdleError?.(err));
  try {
    if (options.migrate ?? true) await migrateLocked(pool);
    else await pool.query('SELECT 1');
  } catch (cause) {
    await pool.end().catch(() => undefined);
    throw new DatabaseOpenError(location, cause);
  }

  // Each statement text is numbered once and named: node-postgres prepares a named statement once per
  // connection, and later only binds and executes it (no parse, no plan: about a tenth of a page's
  // write). Past MAX_CACHED_STATEMENTS, texts are sent unnamed.
  const statements = new Map<string, pg.QueryConfig>();
  const statement = (text: string): pg.QueryConfig => {
    let found = statements.get(text);
    if (found === undefined) {
      found = { text: numberPlaceholders(text) };
      if (statements.size >= MAX_CACHED_STATEMENTS) return found;
      found.name = `glacier_${statements.size}`;
      statements.set(text, found);
    }
    return found;
  };
  const executor = (client: pg.Pool | pg.PoolClient, inTransaction: boolean): Sql => {
    const query = async (text: string, params?: readonly unknown[]) =>
      client.query({ ...statement(text), ...(params && { values: bind(params) }) });
    const self: Sql = {
      dialect: 'postgres',
      all: async <T>(text: string, params?: readonly unknown[]) => (await query(text, params)).rows as T[],
      get: async <T>(text: string, params?: readonly unknown[]) =>
        (await query(text, params)).rows[0] as T | undefined,
      run: async (text, params) => (await query(text, params)).rowCount ?? 0,
      exec: async (script) => {
        await client.query(script);
      },
      transaction: async (fn, txOptions) => {
        if (inTransaction) {
          if (txOptions?.lock) await lock(client, txOptions.lock);
          return fn(self);
        }
        return transaction(pool, fn, txOptions?.lock);
      },
    };
    return self;
  };
  const transaction = async <T>(
    p: pg.Pool,
    fn: (tx: Sql) => Promise<T>,
    lockKey: string | undefined,
  ): Promise<T> => {
    const client = await p.connect();
    let broken: Error | undefined;
    try {
      // BEGIN and the lock in one message (one round trip; a literal, since it carries no parameters).
      await client.query(lockKey ? `BEGIN; ${xactLock(client.escapeLiteral(lockKey))}` : 'BEGIN');
      const result = await fn(executor(client, true));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection is gone: the server rolls back on its own; the pool must not reuse it.
        broken = rollbackError as Error;
      }
      throw err;
    } finally {
      client.release(broken);
    }
  };

  let closing: Promise<void> | undefined;
  return {
    ...executor(pool, false),
    location,
    close: () => {
      closing ??= pool.end();
      return closing;
    },
  };
}

/** A transaction-scoped advisory lock (released by COMMIT or ROLLBACK) on the text `key`: a parameter or a literal. */
const xactLock = (key: string) => `SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;

async function lock(client: pg.Pool | pg.PoolClient, key: string): Promise<void> {
  await client.query(xactLock('$1'), [key]);
}

function bind(params: readonly unknown[]): unknown[] {
  return params.map((p) => (p === undefined ? null : p));
}

/**
 * Applies pending migrations under a session advisory lock on the schema: several processes starting
 * at once (a scheduler and workers on several hosts) apply each migration once; the others wait,
 * then find nothing left to do.
 */
async function migrateLocked(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    const schema = (await client.query<{ schema: string | null }>('SELECT current_schema() AS schema'))
      .rows[0]?.schema;
    if (!schema) {
      const path = (await client.query<{ search_path: string }>('SHOW search_path')).rows[0]?.search_path;
      throw Object.assign(new Error(`no schema of the search_path (${path}) exists`), { code: '3F000' });
    }
    const key = `glacier-collector:migrate:${schema}`;
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
    try {
      await migrate(drizzle(client), {
        migrationsFolder: migrationsFolder('postgres'),
        migrationsSchema: schema,
        migrationsTable: MIGRATIONS_TABLE,
      });
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
    }
  } finally {
    client.release();
  }
}
