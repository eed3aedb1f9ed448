import type { ConnectionOptions } from 'node:tls';
import { getTableColumns, getTableName } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { packageVersion } from '../runtime/version.js';
import { DatabaseOpenError } from './errors.js';
import {
  type AppliedState,
  CREATE_VERSIONS_TABLE,
  DatabaseNewerError,
  type MigrationListener,
  migrationsFolder,
  pendingMigrations,
  RECORD_VERSION,
  readShippedMigrations,
  SELECT_VERSIONS,
  VERSIONS_TABLE,
} from './migrations.js';
import * as pgSchema from './schema.pg.js';
import { MAX_CACHED_STATEMENTS, numberPlaceholders, type Sql, type Store, type UpsertPlan } from './sql.js';

export interface OpenPostgresOptions {
  /** Apply pending migrations from drizzle/postgres/ (start-up and `migrate`). @defaultValue true */
  migrate?: boolean;
  /** Connections of the pool. @defaultValue 10 */
  poolSize?: number;
  /** Told errors of idle pooled connections (a restart of the server): the pool replaces them. */
  onIdleError?: (err: Error) => void;
  /** TLS with the operator's CA and client certificate (`url` then holds no sslmode: it would win). */
  ssl?: ConnectionOptions | undefined;
  /** Told the migrations it is about to apply, before the first (`migrate` prints them, `start` logs them). */
  onMigrations?: MigrationListener | undefined;
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
 *
 * A page is one statement (a round trip per row would cost more than the write): its rows go as one
 * array per column, unnested, so the text is short and fixed whatever the page size (parsed and
 * planned once per connection), in key order, so two hosts upserting overlapping pages wait for each
 * other rather than deadlock.
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
  // A client dropped while checked out, between two statements of a transaction, emits on itself,
  // which the pool does not hear (it listens to idle clients only): unheard, the process would end
  // (exit 1 mid-shutdown). The statement in flight, or the next, fails with it; the pool drops the client.
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    if (options.migrate ?? true) await migrateLocked(pool, location, options.onMigrations);
    else await pool.query('SELECT 1');
  } catch (cause) {
    await pool.end().catch(() => undefined);
    if (cause instanceof DatabaseNewerError) throw cause;
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
      upsert: async (plan, rows) => {
        if (rows.length === 0) return 0;
        const { upsert, touch, touchProps } = compileUpsert(plan);
        const keyOf = (record: Record<string, unknown>) =>
          plan.key.map((k) => String(record[k])).join('\u0000');
        const unique = new Map<string, Record<string, unknown>>();
        for (const record of rows) unique.set(keyOf(record), record); // a key repeated in the page: its last row wins
        const records = [...unique.keys()].sort().map((k) => unique.get(k)!);
        const columnsOf = (of: string[]) => of.map((p) => arrayLiteral(records, p));
        const written = await self.run(upsert, columnsOf(plan.props));
        // Every row new or changed (a page read for the first time): none left to touch.
        if (touch && written < records.length) await self.run(touch, columnsOf(touchProps));
        return written;
      },
      insertIgnoringConflicts: async (table, columns, rows) => {
        // Multi-row statements: a round trip per few thousand rows.
        const perStatement = Math.floor(MAX_PARAMETERS / columns.length);
        const row = `(${columns.map(() => '?').join(',')})`;
        let added = 0;
        for (let start = 0; start < rows.length; start += perStatement) {
          const chunk = rows.slice(start, start + perStatement);
          added += await self.run(
            `INSERT INTO ${table} (${columns.join(',')}) VALUES ${Array.from({ length: chunk.length }, () => row).join(',')}
         ON CONFLICT DO NOTHING`,
            chunk.flat(),
          );
        }
        return added;
      },
      inList: (expr, values) => ({ clause: `${expr} = ANY(?)`, param: values }),
      // One statement: jsonb compares by value (key order, spacing), as the read-compare-write does.
      compareAndSwapCursor: async ({ job, scope, expected, next, at }) => {
        const moved =
          expected === undefined
            ? await self.run(
                'INSERT INTO sync_state (job, scope, cursor, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
                [job, scope, JSON.stringify(next), at],
              )
            : await self.run(
                'UPDATE sync_state SET cursor = ?, updated_at = ? WHERE job = ? AND scope = ? AND cursor = ?::jsonb',
                [JSON.stringify(next), at, job, scope, JSON.stringify(expected)],
              );
        return moved === 1;
      },
      // drizzle/postgres/0002_transactions_summary_triggers.sql: exact whatever other hosts write at once.
      triggersKeepTransactionSummaries: true,
      hasTable: async (name) =>
        (await self.get<{ found: boolean }>('SELECT to_regclass(?) IS NOT NULL AS found', [name]))?.found ===
        true,
      // TOAST included.
      tableSizes: async () => {
        const rows = await self.all<{ name: string; bytes: number | string }>(
          `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
       WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace`,
        );
        return new Map(rows.map((r) => [r.name, Number(r.bytes)]));
      },
      // jsonb_each_text of NULL is no row; its values are text.
      sumRowsRemoved: (where) =>
        `SELECT e.key AS "table", sum(e.value::bigint) AS rows FROM job_runs, jsonb_each_text(job_runs.rows_removed) e
     WHERE ${where} GROUP BY e.key`,
      // Rows another transaction holds are skipped, not waited for: the next run prunes them.
      deleteBatch: (table, where) =>
        `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${where} LIMIT ? FOR UPDATE SKIP LOCKED))`,
      // The ids were copied as they were (the identity is BY DEFAULT): the sequence starts past them.
      afterCopyWithIds: async (table, idColumn) => {
        await self.run(
          `SELECT setval(pg_get_serial_sequence('${table}', '${idColumn}'), max("${idColumn}")) FROM "${table}"`,
        );
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
  const own = executor(pool, false);
  return {
    ...own,
    location,
    close: () => {
      closing ??= pool.end();
      return closing;
    },
    checkWritable: async () => {
      const row = await own.get<{ standby: boolean; insert: boolean }>(
        "SELECT pg_is_in_recovery() AS standby, has_table_privilege('job_runs', 'INSERT') AS insert",
      );
      if (row?.standby) throw new Error('the PostgreSQL server is a read-only standby');
      if (!row?.insert) throw new Error('the database user may not insert into job_runs');
    },
    // Autovacuum reclaims the dead rows; ANALYZE keeps the plans right after a large delete.
    reclaimSpace: async (tables) => {
      for (const table of tables) await own.exec(`ANALYZE ${table}`);
    },
  };
}

/** PostgreSQL's limit of parameters per statement. */
const MAX_PARAMETERS = 65_535;

interface CompiledUpsert {
  upsert: string;
  /** Touches the rows seen again unchanged (those written carry the value already). */
  touch: string | undefined;
  touchProps: string[];
}

const compiled = new WeakMap<UpsertPlan, CompiledUpsert>();

/**
 * PostgreSQL's type of each column of the table `plan` writes (`text`, `numeric`, `bigint`…), by
 * property, from its table in schema.pg.ts: for the casts of `unnest(?::numeric[], …)`. Here, not in
 * the plan, so that a SQLite store never loads the PostgreSQL schema.
 */
function columnTypes(plan: UpsertPlan): (prop: string) => string {
  const name = plan.tableName.slice(1, -1);
  const table = Object.values(pgSchema).find((t) => getTableName(t) === name);
  const types = new Map(
    Object.entries(table ? getTableColumns(table) : {}).map(([p, c]) => [p, c.getSQLType()]),
  );
  return (prop) => {
    const type = types.get(prop);
    if (!type) throw new Error(`${name} has no column ${prop}`);
    return type;
  };
}

function compileUpsert(plan: UpsertPlan): CompiledUpsert {
  let found = compiled.get(plan);
  if (!found) {
    const typeOf = columnTypes(plan);
    const arrays = (of: string[]) => of.map((p) => `?::${typeOf(p)}[]`).join(', ');
    const touchProps = plan.touch ? [plan.touch.prop, ...plan.key] : [];
    const keyVars = plan.key.map((_k, i) => `k${i}`);
    found = {
      upsert: `INSERT INTO ${plan.tableName} (${plan.columnList}) SELECT * FROM unnest(${arrays(plan.props)}) ${plan.conflict}`,
      touch:
        plan.touch &&
        `UPDATE ${plan.tableName} t SET ${plan.touch.name} = k.v FROM unnest(${arrays(touchProps)}) AS k(v, ${keyVars.join(
          ', ',
        )}) WHERE (${plan.keyNames.map((k) => `t.${k}`).join(', ')}) = (${keyVars
          .map((k) => `k.${k}`)
          .join(', ')}) AND t.${plan.touch.name} IS DISTINCT FROM k.v`,
      touchProps,
    };
    compiled.set(plan, found);
  }
  return found;
}

/**
 * The column `prop` of `rows` as a PostgreSQL array literal (`{"a",NULL,"b"}`), what node-postgres
 * would send for a JS array, built in one pass: its own serializer (two regular expressions per
 * element) was a fifth of the client's time per page.
 */
function arrayLiteral(rows: readonly Record<string, unknown>[], prop: string): string {
  let out = '{';
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) out += ',';
    const value = rows[i]![prop];
    if (value === null || value === undefined) out += 'NULL';
    else if (typeof value === 'string')
      out += NEEDS_ESCAPE.test(value) ? `"${value.replace(ESCAPED, '\\$&')}"` : `"${value}"`;
    else if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
      out += String(value);
    else throw new TypeError(`${prop}: cannot send a ${typeof value} in an array`);
  }
  return `${out}}`;
}

const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;

/** A transaction-scoped advisory lock (released by COMMIT or ROLLBACK) on the text `key`: a parameter or a literal. */
const xactLock = (key: string) => `SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;

async function lock(client: pg.Pool | pg.PoolClient, key: string): Promise<void> {
  await client.query(xactLock('$1'), [key]);
}

/** What the schema records of its migrations and of the versions that made them. */
async function postgresState(client: pg.PoolClient, schema: string): Promise<AppliedState> {
  const exists = async (table: string) =>
    (await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [`"${schema}"."${table}"`]))
      .rows[0]?.t != null;
  const last = (await exists(MIGRATIONS_TABLE))
    ? (
        await client.query<{ at: string | null }>(
          `SELECT MAX(created_at)::text AS at FROM "${schema}"."${MIGRATIONS_TABLE}"`,
        )
      ).rows[0]?.at
    : null;
  const versions = (await exists(VERSIONS_TABLE))
    ? (await client.query<{ version: string }>(SELECT_VERSIONS)).rows.map((r) => r.version)
    : [];
  return { lastAppliedMs: last == null ? undefined : Number(last), versions };
}

function bind(params: readonly unknown[]): unknown[] {
  return params.map((p) => (p === undefined ? null : p));
}

/**
 * Applies pending migrations under a session advisory lock on the schema: several processes starting
 * at once (a scheduler and workers on several hosts) apply each migration once; the others wait,
 * then find nothing left to do.
 */
async function migrateLocked(
  pool: pg.Pool,
  location: string,
  onMigrations?: MigrationListener,
): Promise<void> {
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
      const running = packageVersion();
      const folder = migrationsFolder('postgres');
      // Read under the lock, before anything is written: a database of a newer version is refused as it is.
      const shipped = readShippedMigrations('postgres', folder);
      const pending = pendingMigrations(shipped, await postgresState(client, schema), running, location);
      if (pending.length > 0) onMigrations?.(pending);
      await migrate(drizzle(client), {
        migrationsFolder: folder,
        migrationsSchema: schema,
        migrationsTable: MIGRATIONS_TABLE,
      });
      if (!(await postgresState(client, schema)).versions.includes(running)) {
        await client.query(CREATE_VERSIONS_TABLE);
        await client.query(numberPlaceholders(RECORD_VERSION), [running, new Date().toISOString()]);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
    }
  } finally {
    client.release();
  }
}
