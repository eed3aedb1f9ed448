import type Database from 'better-sqlite3';
import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';

/**
 * An upsert for one table, built once from its Drizzle definition and kept as prepared statements:
 * this is the hot path that the benchmark compares with a raw better-sqlite3 insert.
 *
 * - `key`: the natural key (the conflict target).
 * - `update`: columns refreshed on conflict (default: all but the key and `touch`); the row only
 *   counts as written, and is only rewritten, when one of `compare` (default: `update`) differs, so
 *   re-reading known data writes nothing but `touch`. An empty `update` makes it insert-only.
 * - `touch`: a column set to its incoming value whenever a known row is seen again (`last_seen_at`),
 *   changed or not, without counting it as written. A new row already carries it, so it is not
 *   written twice.
 *
 * Rows go one prepared single-row statement each, inside the caller's transaction: a multi-row
 * `INSERT … VALUES (…),(…) ON CONFLICT` needs a statement journal (it may have to undo part of
 * itself), which spills to a temporary file and writes about half as much again as the rows; a
 * single-row statement needs none, so a page writes what a raw insert of it writes. The per-call
 * cost of better-sqlite3 (about a microsecond) is far below the write itself.
 */
export interface UpsertSpec<T extends SQLiteTable> {
  key: (keyof T['$inferInsert'] & string)[];
  update?: (keyof T['$inferInsert'] & string)[];
  compare?: (keyof T['$inferInsert'] & string)[];
  /** Of `update`: columns whose stored value is kept when the new one is NULL. */
  keepWhenNull?: (keyof T['$inferInsert'] & string)[];
  touch?: keyof T['$inferInsert'] & string;
}

/** Writes `rows`; returns how many were new or changed (not those only touched). */
export type Upsert<T extends SQLiteTable> = (rows: readonly T['$inferInsert'][]) => number;

export function createUpsert<T extends SQLiteTable>(
  sqlite: Database.Database,
  table: T,
  spec: UpsertSpec<T>,
): Upsert<T> {
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
          .map((p) => `${tableName}.${nameOf(p)} IS NOT ${incoming(p)}`)
          .join(' OR ')}`;
  const upsert = sqlite.prepare(
    `INSERT INTO ${tableName} (${columns.map((c) => `"${c.name}"`).join(',')}) VALUES (${columns
      .map(() => '?')
      .join(',')}) ${conflict}`,
  );
  const touch = spec.touch
    ? sqlite.prepare(
        `UPDATE ${tableName} SET ${nameOf(spec.touch)} = ? WHERE ${keyNames.map((k) => `${k} = ?`).join(' AND ')}`,
      )
    : undefined;
  const props = columns.map((c) => c.prop);
  const touchProps = spec.touch ? [spec.touch, ...spec.key] : [];
  // Reused for every row: better-sqlite3 copies the values when it binds them.
  const params: unknown[] = new Array(props.length);
  const touchParams: unknown[] = new Array(touchProps.length);

  return (rows) => {
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
}
