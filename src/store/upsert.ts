import type Database from 'better-sqlite3';
import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';

/**
 * A multi-row upsert for one table, built once from its Drizzle definition and kept as prepared
 * statements (one per batch size), so writing a page is a single native call: this is the hot path
 * that the benchmark compares with a raw better-sqlite3 insert.
 *
 * - `key`: the natural key (the conflict target).
 * - `update`: columns refreshed on conflict (default: all but the key); the row only counts as
 *   written, and is only touched, when one of `compare` (default: `update`) differs, so re-reading
 *   known data writes nothing. An empty `update` makes it insert-only.
 */
export interface UpsertSpec<T extends SQLiteTable> {
  key: (keyof T['$inferInsert'] & string)[];
  update?: (keyof T['$inferInsert'] & string)[];
  compare?: (keyof T['$inferInsert'] & string)[];
  /** Of `update`: columns whose stored value is kept when the new one is NULL. */
  keepWhenNull?: (keyof T['$inferInsert'] & string)[];
}

export type Upsert<T extends SQLiteTable> = (rows: readonly T['$inferInsert'][]) => number;

// SQLite's default limit of bound parameters per statement (SQLITE_MAX_VARIABLE_NUMBER since 3.32).
const MAX_PARAMS = 32_766;

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
  const update = spec.update ?? columns.map((c) => c.prop).filter((p) => !spec.key.includes(p as never));
  const compare = spec.compare ?? update;
  const incoming = (p: string) =>
    spec.keepWhenNull?.includes(p as never)
      ? `COALESCE(excluded.${nameOf(p)}, ${tableName}.${nameOf(p)})`
      : `excluded.${nameOf(p)}`;
  const rowPlaceholder = `(${columns.map(() => '?').join(',')})`;
  const conflict =
    update.length === 0
      ? `ON CONFLICT (${keyNames.join(',')}) DO NOTHING`
      : `ON CONFLICT (${keyNames.join(',')}) DO UPDATE SET ${update
          .map((p) => `${nameOf(p)} = ${incoming(p)}`)
          .join(
            ', ',
          )} WHERE ${compare.map((p) => `${tableName}.${nameOf(p)} IS NOT ${incoming(p)}`).join(' OR ')}`;
  const maxRows = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  const statements = new Map<number, Database.Statement>();
  const statementFor = (n: number) => {
    let stmt = statements.get(n);
    if (!stmt) {
      const values = Array.from({ length: n }, () => rowPlaceholder).join(',');
      stmt = sqlite.prepare(
        `INSERT INTO ${tableName} (${columns.map((c) => `"${c.name}"`).join(',')}) VALUES ${values} ${conflict}`,
      );
      statements.set(n, stmt);
    }
    return stmt;
  };
  const props = columns.map((c) => c.prop);

  return (rows) => {
    let changes = 0;
    for (let start = 0; start < rows.length; start += maxRows) {
      const chunk = rows.slice(start, start + maxRows);
      const params: unknown[] = new Array(chunk.length * props.length);
      let i = 0;
      for (const row of chunk) {
        const record = row as Record<string, unknown>;
        for (const prop of props) params[i++] = record[prop] ?? null;
      }
      changes += statementFor(chunk.length).run(params).changes;
    }
    return changes;
  };
}

/**
 * `UPDATE table SET column = ? WHERE key IN (…)` for a batch of keys, prepared per batch size: marks
 * rows as seen again without counting them as written.
 */
export function createTouch<T extends SQLiteTable>(
  sqlite: Database.Database,
  table: T,
  key: (keyof T['$inferInsert'] & string)[],
  column: keyof T['$inferInsert'] & string,
): (keys: readonly unknown[][], value: unknown) => void {
  const cols = getTableColumns(table) as Record<string, { name: string }>;
  const name = (prop: string) => `"${cols[prop]!.name}"`;
  const tuple = `(${key.map(() => '?').join(',')})`;
  const maxRows = Math.floor((MAX_PARAMS - 1) / key.length);
  const statements = new Map<number, Database.Statement>();
  return (keys, value) => {
    for (let start = 0; start < keys.length; start += maxRows) {
      const chunk = keys.slice(start, start + maxRows);
      let stmt = statements.get(chunk.length);
      if (!stmt) {
        stmt = sqlite.prepare(
          `UPDATE "${getTableName(table)}" SET ${name(column)} = ? WHERE (${key.map(name).join(',')}) IN (VALUES ${chunk
            .map(() => tuple)
            .join(',')})`,
        );
        statements.set(chunk.length, stmt);
      }
      stmt.run(value, ...chunk.flat());
    }
  };
}
