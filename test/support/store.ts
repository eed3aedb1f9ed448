import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { isPostgresUrl, storeLocation } from '../../src/config/index.js';
import { type OpenStoreOptions, openStore, type Store } from '../../src/store/index.js';
import { tempDir } from './tmp.js';

/**
 * The store matrix: every test that touches a store runs once per store (vitest.config.ts's `sqlite`
 * and `postgres` projects), selected by `STORE`. On SQLite a test gets a file in a temporary
 * directory; on PostgreSQL a schema of its own in database `test` at 127.0.0.1:5432 (trust auth, the
 * one every development and CI machine runs; `.ci/run` starts it), dropped on cleanup.
 */
export type StoreKind = 'sqlite' | 'postgres';

export const STORE: StoreKind = process.env.STORE === 'postgres' ? 'postgres' : 'sqlite';
export const onPostgres = STORE === 'postgres';

/** The PostgreSQL database the tests' schemas live in. */
export const TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The configuration that selects a database: what config loading and a CLI subprocess are given. */
export type DatabaseEnv = { DATABASE_PATH: string } | { DATABASE_URL: string };

export interface TestDatabase {
  kind: StoreKind;
  /** PostgreSQL: this database's schema. */
  schema?: string;
  /** The SQLite file's path, or the PostgreSQL URL (its search_path set to this test's schema). */
  location: string;
  env: DatabaseEnv;
  /** A directory of this database's own (the SQLite file's; empty on PostgreSQL): for configs, exports… */
  dir: string;
  /** Drops the schema (PostgreSQL) or removes the directory (SQLite). */
  cleanup: () => Promise<void>;
}

/** A PostgreSQL URL whose connections use `schema` (created and migrated in it). */
export function schemaUrl(schema: string): string {
  return `${TEST_POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/** Runs `fn` with a client of its own on the tests' PostgreSQL database. */
export async function withPostgres<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  // A statement blocked (a lock a stray session holds) fails with PostgreSQL's reason, not a test timeout.
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, statement_timeout: 20_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A database location of this test's own, not opened (nor migrated): for tests whose subprocesses or
 * services open it themselves. On PostgreSQL the schema exists (empty); on SQLite the file does not.
 */
export async function testDatabase(options: { filename?: string } = {}): Promise<TestDatabase> {
  const { dir, cleanup: removeDir } = tempDir('glacier-db-');
  if (!onPostgres) {
    const path = join(dir, options.filename ?? 'test.db');
    return {
      kind: 'sqlite',
      location: path,
      env: { DATABASE_PATH: path },
      dir,
      cleanup: async () => removeDir(),
    };
  }
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withPostgres((c) => c.query(`CREATE SCHEMA ${schema}`));
  const url = schemaUrl(schema);
  return {
    kind: 'postgres',
    schema,
    location: url,
    env: { DATABASE_URL: url },
    dir,
    cleanup: async () => {
      try {
        await withPostgres((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
      } finally {
        removeDir();
      }
    },
  };
}

export interface TestStore extends TestDatabase {
  store: Store;
}

/** A store of this test's own with migrations applied; cleanup closes it and drops it. */
export async function testStore(options: OpenStoreOptions = {}): Promise<TestStore> {
  const db = await testDatabase();
  let store: Store;
  try {
    store = await openStore(storeLocation(db.location), options);
  } catch (err) {
    await db.cleanup();
    throw err;
  }
  return {
    ...db,
    store,
    cleanup: async () => {
      try {
        await store.close();
      } finally {
        await db.cleanup();
      }
    },
  };
}

/** Runs `fn` on a connection of its own to `location` (not migrated), closed afterwards. */
export async function withStore<T>(location: string, fn: (store: Store) => Promise<T>): Promise<T> {
  // Opening a SQLite path creates the file: a database that is not there yet must stay so.
  if (!isPostgresUrl(location) && !existsSync(location)) throw new Error(`no database at ${location}`);
  const store = await openStore(storeLocation(location), { migrate: false });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The rows of a query, on a connection of its own (a subprocess or service holds the others). */
export function queryAt<T>(location: string, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  return withStore(location, (store) => store.all<T>(sql, params));
}

/** Count of rows in `table`, or -1 while the database or the table does not exist yet. */
export async function countRows(location: string, table: string): Promise<number> {
  try {
    return await withStore(
      location,
      async (s) => (await s.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n,
    );
  } catch {
    return -1;
  }
}

/** Whether anything created the database: SQLite, its file; PostgreSQL, a table in its schema. */
export async function databaseCreated(db: TestDatabase): Promise<boolean> {
  if (!db.schema) return existsSync(db.location);
  const { rows } = await withPostgres((c) =>
    c.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1 LIMIT 1', [db.schema]),
  );
  return rows.length > 0;
}

/**
 * The tables of a PostgreSQL store with a row whose text contains `needle` (a secret that must not be
 * stored). On SQLite, read the file's bytes instead: they hold deleted rows too.
 */
export async function postgresTablesContaining(store: Store, needle: string): Promise<string[]> {
  if (store.dialect !== 'postgres') throw new Error('postgresTablesContaining is for PostgreSQL');
  const tables = await store.all<{ name: string }>(
    'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()',
  );
  if (!tables.some((t) => t.name === 'job_runs')) throw new Error('no tables in the current schema');
  const found: string[] = [];
  for (const { name } of tables) {
    const hit = await store.get(`SELECT 1 FROM "${name}" t WHERE strpos(t::text, ?) > 0 LIMIT 1`, [needle]);
    if (hit) found.push(name);
  }
  return found;
}
