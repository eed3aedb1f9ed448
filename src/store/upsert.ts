import type Database from 'better-sqlite3';
import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Sql } from './sql.js';
import { sqliteConnection } from './sqlite.js';
import { postgresColumnTypes } from './tables.js';

/**
 * An upsert for one table, built once from its Drizzle definition (the column names, which both
 * dialects share): this is the hot path that the benchmark compares with raw inserts.
 *
 * - `key`: the natural key (the conflict target).
 * - `update`: columns refreshed on conflict (default: all but the key and `touch`); the row only
 *   counts as written, and is only rewritten, when one of `compare` (default: `update`) differs, so
 *   re-reading known data writes nothing but `touch`. An empty `update` makes it insert-only.
 * - `touch`: a column set to its incoming value whenever a known row is seen again (`last_seen_at`),
 *   changed or not, without counting it as written. A new row already carries it, so it is not
 *   written twice.
 *
 * SQLite: one prepared single-row statement per row, inside the caller's transaction: a multi-row
 * `INSERT … VALUES (…),(…) ON CONFLICT` needs a statement journal (it may have to undo part of
 * itself), which spills to a temporary file and writes about half as much again as the rows; a
 * single-row statement needs none, and the per-call cost of better-sqlite3 (about a microsecond) is
 * far below the write itself.
 *
 * PostgreSQL: one statement per page (a round trip per row would cost more than the write), its
 * rows as one array per column, in key order; then, unless every row was new or changed, one
 * `UPDATE` that touches the rest. A statement cannot upsert the same key twice, so a page that holds
 * a key twice keeps its last row, as the single-row statements would.
 */
export interface UpsertSpec<T extends SQLiteTable> {
  key: (keyof T['$inferInsert'] & string)[];
  update?: (keyof T['$inferInsert'] & string)[];
  compare?: (keyof T['$inferInsert'] & string)[];
  /** Of `update`: columns whose stored value is kept when the new one is NULL. */
  keepWhenNull?: (keyof T['$inferInsert'] & string)[];
  touch?: keyof T['$inferInsert'] & string;
}

/** Writes `rows` through `sql` (the page's transaction); returns how many were new or changed (not those only touched). */
export type Upsert<T extends SQLiteTable> = (sql: Sql, rows: readonly T['$inferInsert'][]) => Promise<number>;

export function createUpsert<T extends SQLiteTable>(table: T, spec: UpsertSpec<T>): Upsert<T> {
  const columns = Object.entries(getTableColumns(table)).map(([prop, col]) => ({ prop, name: col.name }));
  const nameOf = (prop: string) => {
    const found = columns.find((c) => c.prop === prop);
    if (!found) throw new Error(`${getTableName(table)} has no column ${prop}`);
    return `"${found.name}"`;
  };
  const tableName = `"${getTableName(table)}"`;
  const keyNames = spec.key.map(nameOf);
  const update =
    spec.update ??
    columns.map((c) => c.prop).filter((p) => !spec.key.includes(p as never) && p !== spec.touch);
  const compare = spec.compare ?? update;
  const incoming = (p: string) =>
    spec.keepWhenNull?.includes(p as never)
      ? `COALESCE(excluded.${nameOf(p)}, ${tableName}.${nameOf(p)})`
      : `excluded.${nameOf(p)}`;
  const set = [...update, ...(spec.touch ? [spec.touch] : [])].map((p) => `${nameOf(p)} = ${incoming(p)}`);
  const conflict =
    update.length === 0
      ? `ON CONFLICT (${keyNames.join(',')}) DO NOTHING`
      : `ON CONFLICT (${keyNames.join(',')}) DO UPDATE SET ${set.join(', ')} WHERE ${compare
          .map((p) => `${tableName}.${nameOf(p)} IS DISTINCT FROM ${incoming(p)}`)
          .join(' OR ')}`;
  const columnList = columns.map((c) => `"${c.name}"`).join(',');
  const row = `(${columns.map(() => '?').join(',')})`;
  const props = columns.map((c) => c.prop);
  const touchProps = spec.touch ? [spec.touch, ...spec.key] : [];

  // SQLite: prepared once per connection.
  const prepared = new WeakMap<
    Database.Database,
    { upsert: Database.Statement; touch?: Database.Statement }
  >();
  const sqliteStatements = (db: Database.Database) => {
    let found = prepared.get(db);
    if (!found) {
      found = {
        upsert: db.prepare(`INSERT INTO ${tableName} (${columnList}) VALUES ${row} ${conflict}`),
        ...(spec.touch && {
          touch: db.prepare(
            `UPDATE ${tableName} SET ${nameOf(spec.touch)} = ? WHERE ${keyNames.map((k) => `${k} = ?`).join(' AND ')}`,
          ),
        }),
      };
      prepared.set(db, found);
    }
    return found;
  };
  // Reused for every row: better-sqlite3 copies the values when it binds them.
  const params: unknown[] = new Array(props.length);
  const touchParams: unknown[] = new Array(touchProps.length);
  const upsertSqlite = (db: Database.Database, rows: readonly T['$inferInsert'][]) => {
    const { upsert, touch } = sqliteStatements(db);
    let changes = 0;
    for (const row of rows) {
      const record = row as Record<string, unknown>;
      for (let i = 0; i < props.length; i++) params[i] = record[props[i]!] ?? null;
      const written = upsert.run(params).changes;
      changes += written;
      if (written === 0 && touch) {
        for (let i = 0; i < touchProps.length; i++) touchParams[i] = record[touchProps[i]!] ?? null;
        touch.run(touchParams);
      }
    }
    return changes;
  };

  const keyOf = (record: Record<string, unknown>) => spec.key.map((k) => String(record[k])).join('\u0000');
  // PostgreSQL: the rows go as one array per column, unnested: one short statement text whatever the
  // number of rows (parsed and planned once per connection, see postgres.ts), and no parameter limit.
  const pgType = postgresColumnTypes(table);
  const arrays = (of: string[]) => of.map((p) => `?::${pgType(p)}[]`).join(', ');
  const touch = spec.touch;
  const pgUpsert = `INSERT INTO ${tableName} (${columnList}) SELECT * FROM unnest(${arrays(props)}) ${conflict}`;
  // Rows the upsert inserted or rewrote carry the incoming value already: they are skipped by the
  // IS DISTINCT FROM, and the UPDATE only writes the rows seen again unchanged.
  const pgTouch =
    touch &&
    `UPDATE ${tableName} t SET ${nameOf(touch)} = k.v FROM unnest(${arrays(touchProps)}) AS k(v, ${spec.key
      .map((_k, i) => `k${i}`)
      .join(', ')}) WHERE (${keyNames.map((k) => `t.${k}`).join(', ')}) = (${spec.key
      .map((_k, i) => `k.k${i}`)
      .join(', ')}) AND t.${nameOf(touch)} IS DISTINCT FROM k.v`;
  const upsertPostgres = async (sql: Sql, rows: readonly T['$inferInsert'][]) => {
    const unique = new Map<string, Record<string, unknown>>();
    for (const r of rows) {
      const record = r as Record<string, unknown>;
      unique.set(keyOf(record), record); // a key repeated in the page: its last row wins
    }
    // In key order: two hosts upserting overlapping pages lock their rows in the same order, and one
    // waits for the other instead of deadlocking.
    const keys = [...unique.keys()].sort();
    const records = keys.map((k) => unique.get(k)!);
    const columnsOf = (of: string[], rs: Record<string, unknown>[]) => of.map((p) => arrayLiteral(rs, p));
    const written = await sql.run(pgUpsert, columnsOf(props, records));
    // Every row new or changed (a page read for the first time): none left to touch.
    if (pgTouch && written < records.length) await sql.run(pgTouch, columnsOf(touchProps, records));
    return written;
  };

  return async (sql, rows) => {
    if (rows.length === 0) return 0;
    const db = sqliteConnection(sql);
    return db ? upsertSqlite(db, rows) : upsertPostgres(sql, rows);
  };
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
