import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Sql, UpsertPlan } from './sql.js';
import { postgresColumnTypes } from './tables.js';

/**
 * An upsert for one table, built once from its Drizzle definition (the column names, which both
 * databases share): this is the hot path that the benchmark compares with raw inserts.
 *
 * - `key`: the natural key (the conflict target).
 * - `update`: columns refreshed on conflict (default: all but the key and `touch`); the row only
 *   counts as written, and is only rewritten, when one of `compare` (default: `update`) differs, so
 *   re-reading known data writes nothing but `touch`. An empty `update` makes it insert-only.
 * - `touch`: a column set to its incoming value whenever a known row is seen again (`last_seen_at`),
 *   changed or not, without counting it as written. A new row already carries it, so it is not
 *   written twice.
 *
 * Each driver writes the page its own way (`Sql.upsert`: one prepared single-row statement per row
 * on SQLite, one statement per page on PostgreSQL, then one `UPDATE` that touches the rows seen
 * again unchanged); a page that holds a key twice keeps its last row on both.
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
    rows.length === 0 ? 0 : sql.upsert(plan, rows as readonly Record<string, unknown>[]);
}
