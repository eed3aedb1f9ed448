import { getTableName, is } from 'drizzle-orm';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Store } from './open.js';
import * as schema from './schema.js';

/** Every table of the schema, in the order schema.ts declares them. */
export function schemaTables(): SQLiteTable[] {
  return (Object.values(schema) as unknown[]).filter((value): value is SQLiteTable => is(value, SQLiteTable));
}

/** Rows per table (a full count: SQLite keeps no row count, so this reads each table's smallest index). */
export function countRowsPerTable(store: Store): { table: string; rows: number }[] {
  return schemaTables().map((table) => {
    const name = getTableName(table);
    const row = store.sqlite.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).get() as { n: number };
    return { table: name, rows: row.n };
  });
}
