import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { statementsOf } from './dialects/index.js';
import type { Sql } from './sql.js';
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

/**
 * What both dialects need to write a page of one table, built once from its Drizzle definition;
 * each dialect (src/store/dialects/) compiles its own statements from it, once.
 */
export interface UpsertPlan {
  /** Quoted: `"transactions"`. */
  tableName: string;
  /** The row objects' property of each column, in column order. */
  props: string[];
  /** Quoted column names, comma-separated, in column order. */
  columnList: string;
  /** `ON CONFLICT (…) DO UPDATE SET … WHERE … IS DISTINCT FROM …` (or `DO NOTHING`). */
  conflict: string;
  /** The natural key: properties and quoted names. */
  key: string[];
  keyNames: string[];
  /** The touched column (`last_seen_at`): its property and quoted name. */
  touch: { prop: string; name: string } | undefined;
  /** PostgreSQL's type of a property's column (`text`, `numeric`, `bigint`…). */
  pgTypeOf: (prop: string) => string;
}

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
  const plan: UpsertPlan = {
    tableName,
    props: columns.map((c) => c.prop),
    columnList: columns.map((c) => `"${c.name}"`).join(','),
    conflict:
      update.length === 0
        ? `ON CONFLICT (${keyNames.join(',')}) DO NOTHING`
        : `ON CONFLICT (${keyNames.join(',')}) DO UPDATE SET ${set.join(', ')} WHERE ${compare
            .map((p) => `${tableName}.${nameOf(p)} IS DISTINCT FROM ${incoming(p)}`)
            .join(' OR ')}`,
    key: [...spec.key],
    keyNames,
    touch: spec.touch ? { prop: spec.touch, name: nameOf(spec.touch) } : undefined,
    pgTypeOf: postgresColumnTypes(table),
  };
  return async (sql, rows) =>
    rows.length === 0 ? 0 : statementsOf(sql).upsert(sql, plan, rows as readonly Record<string, unknown>[]);
}
